/** A group of media, playlists or templates. Groups nest through parentId. */
export interface ContentGroupRecord {
  name: string;
  parentId: string | null;
}

/** What every grouped content item carries; groupName is denormalised so filters and sorts need no join. */
export interface Grouped {
  groupId: string | null;
  groupName: string | null;
  tags: string[];
}
