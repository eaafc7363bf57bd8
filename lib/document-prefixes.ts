/** S3 key prefix of the `before` function's documents in the data bucket. */
export const DOCS_PREFIX = 'docs/';
/** Where the `after` function mounts the S3 Files access point. */
export const MOUNT_PATH = '/mnt/docs';
