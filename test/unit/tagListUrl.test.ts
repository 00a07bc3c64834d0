import { describe, expect, it } from 'vitest';
import { FIRST_PAGE, PAGE_SIZE, listParamsFromUrl, listParamsToUrl } from '../../components/console/listParams';

describe('the tag list in the address bar', () => {
  it('the first page is the plain URL, and the plain URL is the first page', () => {
    expect(listParamsToUrl(FIRST_PAGE)).toBe('');
    expect(listParamsFromUrl('')).toEqual({ q: '', sort: 'name', offset: 0 });
  });

  it('search, sort and page round-trip', () => {
    const state = { q: 'order ünï', sort: '-rate' as const, offset: 2 * PAGE_SIZE };
    const query = listParamsToUrl(state);
    expect(query).toBe('?q=order+%C3%BCn%C3%AF&sort=-rate&page=3');
    expect(listParamsFromUrl(query)).toEqual(state);
  });

  it('a hand-edited URL falls back field by field instead of asking the server for nonsense', () => {
    expect(listParamsFromUrl('?sort=-password&page=abc&q=%20x%20')).toEqual({ q: 'x', sort: 'name', offset: 0 });
    expect(listParamsFromUrl('?sort=runway&page=0')).toEqual({ q: '', sort: 'runway', offset: 0 });
    expect(listParamsFromUrl('?page=1e400')).toEqual({ q: '', sort: 'name', offset: 0 });
    expect(listParamsFromUrl('?page=2.5')).toEqual({ q: '', sort: 'name', offset: 0 });
  });
});
