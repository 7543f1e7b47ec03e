import { badInput } from '@pylon/kit';

/** True for an IANA time zone name the runtime knows (Europe/Amsterdam, UTC). */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function checkTimeZone(tz: string, field = 'timezone'): string {
  if (!isTimeZone(tz)) throw badInput(field, `${field} '${tz.slice(0, 64)}' is not an IANA time zone name (e.g. Europe/Amsterdam)`);
  return tz;
}

/** A trimmed optional text field: undefined stays undefined (not given), '' becomes null. */
export function optionalText(value: string | null | undefined, field: string, max = 200): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const v = value.trim();
  if (v.length > max) throw badInput(field, `${field} must be at most ${max} characters`);
  return v === '' ? null : v;
}

export function requiredText(value: string | null | undefined, field: string, max = 200): string {
  const v = optionalText(value, field, max);
  if (!v) throw badInput(field, `${field} is required`);
  return v;
}
