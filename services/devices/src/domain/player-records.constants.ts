/** Enumerations of player records (player-records.ts), apart so the fast checker shares them without an import cycle. */
export const SENSORS = ['motion', 'face', 'ble', 'wifi'] as const;
/** The spec's AnalyticsGender and AnalyticsAgeRange values, stored as they are. */
export const GENDERS = ['MALE', 'FEMALE', 'UNKNOWN'] as const;
export const AGE_RANGES = ['UNDER18', 'AGE18TO24', 'AGE25TO34', 'AGE35TO44', 'AGE45TO54', 'AGE55TO64', 'AGE65TO74', 'AGEOVER74'] as const;
/** How a play ended: shown for its time, skipped before it started (the player's start watchdog), or failed while showing. */
export const PLAY_STATUSES = ['completed', 'skipped', 'failed'] as const;
/** Largest clock offset a player may report (ms either way): a board without a clock battery boots in 1970. */
export const MAX_CLOCK_OFFSET_MS = 100 * 366 * 86_400_000;
