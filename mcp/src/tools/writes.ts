/** Acting on screens: sending commands (destructive: needs confirm) and scheduling content on them. */
import { z } from 'zod';
import { documents as d, payload } from '@pylon/client';
import { confirmArg, defineTool, needsConfirm } from '../tool.js';
import { ownScreens, screenIds } from './screens.js';

const ref = z.object({ id: z.string(), name: z.string() });
/** An optional day, YYYY-MM-DD, and an optional local time of day, HH:mm. */
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();
const clock = z
  .string()
  .regex(/^\d{2}:\d{2}$/)
  .optional();

export const sendCommand = defineTool({
  name: 'send_command',
  title: 'Send a command to screens',
  kind: 'destructive',
  description: `Queues one display command on each listed screen (e.g. reboot, restart, screenshot, volume with arg "0".."100", standby, wake;
the account's displayCommands lists them). Commands like reboot interrupt what the screens show, so this tool changes nothing unless
confirm is true: without it, it answers which screens it would reach. Every id must be one of your screens, or nothing is sent.
Answers, per screen, the queued command ids (their delivery shows in the device's commands).`,
  input: {
    screenIds,
    command: z.string().min(1).max(50).describe('The command name, e.g. reboot.'),
    arg: z.string().max(200).optional().describe('Its argument, where it takes one (volume: "0" to "100").'),
    confirm: confirmArg,
  },
  output: {
    queued: z.array(z.object({ screen: ref, commands: z.array(z.object({ id: z.string(), command: z.string(), status: z.string() })) })),
  },
  async run(client, i) {
    const screens = await ownScreens(client, i.screenIds);
    if (!screens.ok) return screens;
    if (i.confirm !== true)
      return needsConfirm(
        `This would send "${i.command}" to ${screens.value.length} screen(s): ${screens.value.map((s) => `${s.name} (${s.id})`).join(', ')}.`,
      );
    const queued = [];
    for (const s of screens.value) {
      const r = await client.graphql(d.SendCommandsDocument, { deviceId: s.id, commands: [{ command: i.command, arg: i.arg ?? null }] });
      if (!r.ok) return r;
      const p = payload(r.value.sendDeviceCommand);
      if (!p.ok) return p;
      queued.push({ screen: s, commands: p.value.commands ?? [] });
    }
    return { ok: true, value: { queued } };
  },
});

export const scheduleContent = defineTool({
  name: 'schedule_content',
  title: 'Schedule content on screens',
  kind: 'write',
  description: `Makes screens play content on a schedule: give either mediaId (an uploaded image or video: a one-item playlist showing it is
created for it) or playlistId, and the screens. Without dates and hours it plays every day, all day, from now, at NORMAL priority; a
higher priority outranks the screens' other schedules in its window. Every id must be one of your screens, or nothing is created.
Answers exactly what it created (the schedule, and the playlist when it made one). Check the result with explain_screen.`,
  input: {
    screenIds,
    name: z.string().min(1).max(200).describe('Name of the new schedule.'),
    mediaId: z.string().min(1).max(200).optional().describe('An uploaded media file to show (exclusive with playlistId).'),
    playlistId: z.string().min(1).max(200).optional().describe('An existing playlist to play (exclusive with mediaId).'),
    secondsPerItem: z.number().int().min(1).max(86_400).optional().describe('With mediaId: how long it shows each time, default 10.'),
    startDate: day.describe("First day (YYYY-MM-DD), in the screens' time zones; default today."),
    endDate: day.describe('Last day, inclusive; default open-ended.'),
    startTime: clock.describe('Daily start HH:mm, local time; default 00:00.'),
    endTime: clock.describe('Daily end HH:mm, local time; default 24:00.'),
    priority: z.enum(['LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST']).optional().describe('Default NORMAL.'),
  },
  output: {
    created: z.object({
      schedule: z.object({
        id: z.string(),
        name: z.string(),
        priority: z.string(),
        startDate: z.string().nullable(),
        endDate: z.string().nullable(),
        startTime: z.string().nullable(),
        endTime: z.string().nullable(),
      }),
      playlist: ref.nullable().describe('The playlist this call created for mediaId; null when playlistId was given.'),
    }),
    screens: z.array(ref),
  },
  async run(client, i) {
    if (!i.mediaId === !i.playlistId)
      return { ok: false, error: { kind: 'payload', code: 'VALIDATION_FAILED', message: 'give exactly one of mediaId and playlistId' } };
    const screens = await ownScreens(client, i.screenIds);
    if (!screens.ok) return screens;
    let playlistId = i.playlistId;
    let created: { id: string; name: string } | null = null;
    if (i.mediaId) {
      const pl = await client.graphql(d.CreatePlaylistForDocument, { input: { name: i.name, type: 'SLIDESHOW' } });
      if (!pl.ok) return pl;
      const made = payload(pl.value.createPlaylist);
      if (!made.ok) return made;
      created = made.value.playlist!;
      playlistId = created.id;
      const add = await client.graphql(d.AddToPlaylistDocument, { input: { playlistId, fileId: i.mediaId, interval: i.secondsPerItem ?? 10 } });
      if (!add.ok) return add;
      const added = payload(add.value.addPlaylistSource);
      if (!added.ok) return added;
    }
    const s = await client.graphql(d.ScheduleContentDocument, {
      input: {
        name: i.name,
        playlistId: playlistId!,
        deviceIds: screens.value.map((x) => x.id),
        startDate: i.startDate ?? null,
        endDate: i.endDate ?? null,
        startTime: i.startTime ?? null,
        endTime: i.endTime ?? null,
        priority: i.priority ?? null,
      },
    });
    if (!s.ok) return s;
    const sched = payload(s.value.createSchedule);
    if (!sched.ok) return sched;
    const schedule = sched.value.schedule!;
    return {
      ok: true,
      value: {
        created: {
          schedule: {
            ...schedule,
            priority: String(schedule.priority),
            startDate: schedule.startDate ?? null,
            endDate: schedule.endDate ?? null,
            startTime: schedule.startTime ?? null,
            endTime: schedule.endTime ?? null,
          },
          playlist: created,
        },
        screens: screens.value,
      },
    };
  },
});
