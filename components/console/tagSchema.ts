/** The forms check against the server's own schemas (pure zod, safe in the browser); the server stays the authority. */
export {
  BIZ_TAG_MAX_LENGTH,
  DESCRIPTION_MAX_LENGTH,
  MAX_COUNT,
  MAX_STEP,
  createTagSchema,
  createTokenSchema,
  TOKEN_NAME_MAX_LENGTH,
  fieldErrors,
  readableLimit,
  updateTagSchema,
} from '@/lib/admin/schema';
export type { CreateTagRequest, CreateTokenRequest, UpdateTagRequest } from '@/lib/admin/schema';
