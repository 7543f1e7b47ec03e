/**
 * An account's media files as play logs need them. Media belong to the content service; devices
 * asks so a play log keeps the file's name (statistics survive a deleted or renamed file), so a
 * file id that names no file of the account is flagged, and so a play outside the file's validity
 * window (content expiry, issue 37.3) is refused. In-process in the all-in-one (content's
 * repository), over content's GraphQL when distributed.
 */
export interface MediaFacts {
  name: string;
  /** The file's validity window, ISO 8601; null sides are open. */
  validFrom: string | null;
  validUntil: string | null;
}

export interface MediaDirectory {
  /** Facts of each id that is a media file of `accountId`; ids of other accounts or of no file are absent. */
  files(accountId: string, fileIds: readonly string[]): Promise<Map<string, MediaFacts>>;
}
