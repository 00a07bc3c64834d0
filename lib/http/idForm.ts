/** `?format=base62|base32` on the segment routes: the answer's IDs in a short string form (lib/opaque/shortForms.ts). */
import { LeafError } from '../errors';
import { ID_FORMS, type IdForm, encodeId } from '../opaque/shortForms';
import { type Answer, jsonOk, plainText } from './answer';

/** The query's `format` (-1: no query): `decimal` when absent. */
export function formIn(url: string, q: number): IdForm {
  if (q === -1) return 'decimal';
  let found: string | null = null;
  let start = q + 1;
  while (start <= url.length) {
    let end = url.indexOf('&', start);
    if (end === -1) end = url.length;
    if (url.startsWith('format=', start)) {
      if (found !== null) throw invalidForm();
      found = url.slice(start + 7, end);
    }
    start = end + 1;
  }
  if (found === null) return 'decimal';
  if (!(ID_FORMS as readonly string[]).includes(found)) throw invalidForm();
  return found as IdForm;
}

function invalidForm(): LeafError {
  return new LeafError('invalid_request', `format must be one of ${ID_FORMS.join(', ')}, given once.`);
}

/** The same answer with its IDs in `form`; an error, or the decimal form, passes as it is. */
export function inForm(answer: Answer | Promise<Answer>, form: IdForm): Answer | Promise<Answer> {
  if (form === 'decimal') return answer;
  if (answer instanceof Promise) return answer.then((a) => reformed(a, form));
  return reformed(answer, form);
}

function reformed(answer: Answer, form: IdForm): Answer {
  if (answer.status !== 200) return answer;
  if (answer.headers['content-type']?.startsWith('text/plain') === true) {
    return plainText(encodeId(BigInt(answer.body), form));
  }
  const body = JSON.parse(answer.body) as { tag: string; id?: string; ids?: string[] };
  if (body.id !== undefined) return jsonOk({ tag: body.tag, id: encodeId(BigInt(body.id), form) });
  return jsonOk({ tag: body.tag, ids: (body.ids ?? []).map((id) => encodeId(BigInt(id), form)) });
}
