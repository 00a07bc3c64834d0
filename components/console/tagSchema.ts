/** The forms check against the server's own schemas (pure zod, safe in the browser); the server stays the authority. */
export { createTagSchema, fieldErrors, updateTagSchema } from '@/lib/admin/schema';
export type { CreateTagRequest, UpdateTagRequest } from '@/lib/admin/schema';
