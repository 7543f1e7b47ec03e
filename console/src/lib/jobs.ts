/** What the console reads of a background job (a data table import, a bulk screen job) while it runs. */
import { graphql } from '../gql';

export const JobProgressFields = graphql(`
  fragment JobProgressFields on Job {
    id
    state
    error
    progress {
      rowsDone
      rowsTotal
      rowsFailed
    }
  }
`);
