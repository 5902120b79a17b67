import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound } from '../../errors.js';
import { normalizeSerial } from '../../protocol/serial.js';
import { Command } from '../../store/records.js';
import { DateRange, errorResponses, Pagination } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';
import { checkRange, parseUuid, UuidParam } from '../record-query.js';

const ListQuery = Type.Object({
  serialNumber: Type.Optional(Type.String({ description: "Only this device's commands (a filter: an unknown serial lists nothing)." })),
  ...DateRange,
  ...Pagination,
  newest: Type.Optional(Type.Boolean({ description: 'Newest first (by submitted); with limit, the newest N.' })),
}, { additionalProperties: false });

const DeleteQuery = Type.Object({
  serialNumber: Type.String({ description: 'Required: whose commands to delete.' }),
  ...DateRange,
}, { additionalProperties: false });

const CommandList = Type.Object({ commands: Type.Array(Command) }, {
  description: 'Oldest first by submitted unless newest=true. details and results are JSON documents as text.',
});

/** spec "Commands history": GET/DELETE /commands and /command/{commandUUID}. */
export async function commandHistoryRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/commands', {
    config: { wire: 'commandList' },
    schema: { tags: ['commands'], summary: 'List the command history', querystring: ListQuery, response: { 200: CommandList, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    checkRange(q);
    const serial = q.serialNumber === undefined ? undefined : normalizeSerial(q.serialNumber);
    return { commands: await deps.commands.list({ ...q, serial }) };
  });

  api.delete('/commands', {
    schema: {
      tags: ['commands'], summary: "Delete a device's commands (and their files) submitted in a date range",
      querystring: DeleteQuery, response: { 204: Type.Null(), ...errorResponses },
    },
  }, async (req, reply) => {
    const q = req.query as Static<typeof DeleteQuery>;
    checkRange(q);
    await deps.commands.deleteRange({ serial: normalizeSerial(q.serialNumber), startDate: q.startDate, endDate: q.endDate });
    return reply.deleted();
  });

  api.get('/command/:commandUUID', {
    config: { wire: 'command' },
    schema: { tags: ['commands'], summary: 'Get one command', params: UuidParam('commandUUID'), response: { 200: Command, ...errorResponses } },
  }, async (req) => {
    const uuid = parseUuid((req.params as { commandUUID: string }).commandUUID, 'commandUUID');
    const command = await deps.commands.get(uuid);
    if (!command) throw notFound('commandUUID', `Command ${uuid} does not exist.`);
    return command;
  });

  api.delete('/command/:commandUUID', {
    schema: { tags: ['commands'], summary: 'Delete one command and its file', params: UuidParam('commandUUID'), response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    const uuid = parseUuid((req.params as { commandUUID: string }).commandUUID, 'commandUUID');
    if (!(await deps.commands.delete(uuid))) throw notFound('commandUUID', `Command ${uuid} does not exist.`);
    return reply.deleted();
  });
}
