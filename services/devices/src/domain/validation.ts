/** Input checks of the devices domain; zod parsing with field-naming errors is kit's `parseInput`. */

export { assertPlainJson, inputError, parseInput } from '@pylon/kit';

/** True for IANA time zone names the runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
