import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound } from '../../errors.js';
import { normalizeSerial } from '../../protocol/serial.js';
import { errorResponses } from '../../server/schemas.js';
import { FILE_CONTENT_TYPES, fileType } from '../../store/files-repo.js';
import type { GatewayDeps } from '../deps.js';
import { parseUuid, UuidParam } from '../record-query.js';

const FileQuery = Type.Object({
  serialNumber: Type.String({ description: 'Required: the device the command was sent to.' }),
}, { additionalProperties: false });

/**
 * spec "Other operations": files APs upload for commands (trace, script output), by command UUID.
 * Upstream quirk fixed (docs/upstream.md#gateway-behaviour-airtwin-does-not-copy): a file of
 * another device is a plain 404, never a 202 that leaks its existence.
 */
export async function filesRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const target = (params: unknown, query: unknown) => ({
    uuid: parseUuid((params as { uuid: string }).uuid, 'uuid'),
    serial: normalizeSerial((query as Static<typeof FileQuery>).serialNumber),
  });

  api.get('/file/:uuid', {
    schema: {
      tags: ['files'], summary: 'Download the file uploaded for a command',
      description: 'The bytes (application/vnd.tcpdump.pcap, application/gzip, text/plain or application/octet-stream, by type) '
        + 'with Content-Disposition attachment; filename=<uuid>.<pcap|tgz|txt|bin>. '
        + '202 with an empty body while the command still waits for the upload.',
      params: UuidParam('uuid'), querystring: FileQuery,
      response: {
        200: { description: 'The file', content: Object.fromEntries(Object.values(FILE_CONTENT_TYPES).map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) },
        202: Type.Null({ description: 'The device has not uploaded the file yet.' }),
        ...errorResponses,
      },
    },
  }, async (req, reply) => {
    const { uuid, serial } = target(req.params, req.query);
    const file = await deps.files.get(uuid, serial);
    if (file) {
      return reply
        .type(FILE_CONTENT_TYPES[fileType(file.type)])
        .header('content-disposition', `attachment; filename=${uuid}.${file.type}`)
        .send(file.content);
    }
    const command = await deps.commands.get(uuid);
    if (command?.serialNumber === serial && command.waitingForFile) return reply.status(202).send();
    throw notFound('uuid', `No file for command ${uuid} of device ${serial}.`);
  });

  api.delete('/file/:uuid', {
    schema: {
      tags: ['files'], summary: 'Delete the file uploaded for a command',
      params: UuidParam('uuid'), querystring: FileQuery, response: { 204: Type.Null(), ...errorResponses },
    },
  }, async (req, reply) => {
    const { uuid, serial } = target(req.params, req.query);
    if (!(await deps.files.delete(uuid, serial))) throw notFound('uuid', `No file for command ${uuid} of device ${serial}.`);
    return reply.deleted();
  });
}
