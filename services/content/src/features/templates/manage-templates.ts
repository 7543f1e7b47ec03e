/**
 * Templates: create, replace, delete. Modules must lie inside the template, have positive sizes,
 * and play playlists and show data tables of the caller's account (a foreign or unknown playlist
 * or data table id is refused, naming the module's field).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, parseInput, type Principal } from '@pylon/kit';
import type { Template } from '../../shared/content.repository.js';
import { idField, nameField, tagsField } from '../../domain/fields.js';
import { checkModulesInside, type TemplateModuleRecord } from '../../domain/template.js';
import type { ContentRuntime } from '../../runtime.js';
import { contentChanged, contentEvent } from '../../shared/content-changes.js';

const px = z.number().int().min(0).max(32_768);
const size = z.number().int().min(1).max(32_768);

const moduleSchema = z
  .object({
    id: idField.nullable().optional(),
    name: z.string().trim().max(200).nullable().optional(),
    type: z.string().trim().max(100).nullable().optional(),
    left: px,
    top: px,
    width: size,
    height: size,
    playlistId: idField.nullable().optional(),
    dataTableId: idField.nullable().optional(),
  })
  .strict();

const createSchema = z
  .object({
    name: nameField,
    width: size,
    height: size,
    orientation: z.number().int().min(0).max(3).nullable().optional(),
    modules: z.array(moduleSchema).max(100).nullable().optional(),
    groupId: z.string().trim().max(200).nullable().optional(),
    tags: tagsField.nullable().optional(),
  })
  .strict();

const updateSchema = createSchema.extend({ modules: z.array(moduleSchema).max(100), expectedVersion: z.number().int().min(1).nullable().optional() }).strict();

async function checkedModules(rt: ContentRuntime, tenant: string, t: z.infer<typeof createSchema>): Promise<TemplateModuleRecord[]> {
  const modules: TemplateModuleRecord[] = (t.modules ?? []).map((m) => ({
    id: m.id ?? randomUUID(),
    name: m.name ?? null,
    type: m.type ?? null,
    left: m.left,
    top: m.top,
    width: m.width,
    height: m.height,
    playlistId: m.playlistId ?? null,
    dataTableId: m.dataTableId ?? null,
  }));
  checkModulesInside(t.width, t.height, modules);
  const wanted = [...new Set(modules.flatMap((m) => (m.playlistId ? [m.playlistId] : [])))];
  const found = await rt.repo.playlists.findByIds(tenant, wanted);
  modules.forEach((m, i) => {
    if (m.playlistId && !found.has(m.playlistId)) {
      throw new AppError('BAD_USER_INPUT', `modules[${i}].playlistId: playlist '${m.playlistId.slice(0, 100)}' was not found`, {
        field: `modules[${i}].playlistId`,
      });
    }
  });
  const tables = [...new Set(modules.flatMap((m) => (m.dataTableId ? [m.dataTableId] : [])))];
  if (tables.length) {
    if (!rt.dataTables) throw new AppError('UNAVAILABLE', 'data tables cannot be checked by this deployment', { field: 'modules' });
    const existing = await rt.dataTables.existing(tenant, tables);
    modules.forEach((m, i) => {
      if (m.dataTableId && !existing.has(m.dataTableId)) {
        throw new AppError('BAD_USER_INPUT', `modules[${i}].dataTableId: data table '${m.dataTableId.slice(0, 100)}' was not found`, {
          field: `modules[${i}].dataTableId`,
        });
      }
    });
  }
  return modules;
}

export async function createTemplate(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Template> {
  const tenant = principal.accountId;
  const t = parseInput(createSchema, input);
  const modules = await checkedModules(rt, tenant, t);
  const group = await rt.repo.templates.groupTree.groupFor(tenant, t.groupId);
  const created = await rt.repo.templates.add(tenant, {
    name: t.name,
    width: t.width,
    height: t.height,
    orientation: t.orientation ?? 0,
    modules,
    ...group,
    tags: t.tags ?? [],
  });
  contentEvent(rt, tenant, 'template', created.id, 'created');
  return created;
}

export async function updateTemplate(rt: ContentRuntime, principal: Principal, id: string, input: unknown): Promise<Template> {
  const tenant = principal.accountId;
  const current = await rt.repo.templates.get(tenant, id);
  const t = parseInput(updateSchema, input);
  const modules = await checkedModules(rt, tenant, t);
  const group = await rt.repo.templates.groupTree.groupFor(tenant, t.groupId);
  const changed = await rt.repo.templates.change(
    tenant,
    current.id,
    { name: t.name, width: t.width, height: t.height, orientation: t.orientation ?? 0, modules, ...group, tags: t.tags ?? [] },
    t.expectedVersion ?? undefined,
  );
  await contentChanged(rt, tenant, { templateIds: [changed.id] });
  contentEvent(rt, tenant, 'template', changed.id, 'updated');
  return changed;
}

export async function deleteTemplate(rt: ContentRuntime, principal: Principal, id: string): Promise<{ templateId: string }> {
  const tenant = principal.accountId;
  const template = await rt.repo.templates.get(tenant, id);
  await rt.repo.templates.remove(tenant, template.id);
  await contentChanged(rt, tenant, { templateIds: [template.id] });
  contentEvent(rt, tenant, 'template', template.id, 'deleted');
  return { templateId: template.id };
}
