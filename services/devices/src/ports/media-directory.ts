/**
 * The names of an account's media files. Media belong to the content service; devices asks only so
 * a play log keeps the file's name (statistics survive a deleted or renamed file) and so a file id
 * that names no file of the account is flagged. In-process in the all-in-one (content's
 * repository), over content's GraphQL when distributed.
 */
export interface MediaDirectory {
  /** Name of each id that is a media file of `accountId`; ids of other accounts or of no file are absent. */
  names(accountId: string, fileIds: readonly string[]): Promise<Map<string, string>>;
}
