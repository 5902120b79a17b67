import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname, cpus, type, release } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { LevelWithSilent } from 'pino';
import { badRequest } from '../errors.js';
import { LEVEL_NAMES, SUBSYSTEMS, type Logging, type Subsystem } from './logging.js';
import { errorResponses } from './schemas.js';

export interface SystemDeps {
  version: string;
  /** Epoch ms when the process started. */
  startedAt: number;
  now: () => number;
  logging: Logging;
  /** TLS files whose expiry `info` reports. */
  certificateFiles: string[];
}

const SystemInfo = Type.Object({
  version: Type.String(), uptime: Type.Integer(), start: Type.Integer(), os: Type.String(),
  processors: Type.Integer(), hostname: Type.String(),
  certificates: Type.Array(Type.Object({ filename: Type.String(), expires: Type.Integer() })),
}, { $id: 'SystemInfo', title: 'SystemInfo' });

const Resources = Type.Object({
  numberOfFileDescriptors: Type.Integer(), currRealMem: Type.Integer(), peakRealMem: Type.Integer(),
  currVirtMem: Type.Integer(), peakVirtMem: Type.Integer(),
});

const TagValue = Type.Object({ tag: Type.String(), value: Type.String() });
const SystemPost = Type.Object({
  command: Type.String({ description: 'setloglevel | getloglevels | getloglevelnames | getsubsystemnames' }),
  subsystems: Type.Optional(Type.Array(TagValue)),
});
const SystemPostAnswer = Type.Object({
  taglist: Type.Optional(Type.Array(TagValue)),
  tagList: Type.Optional(Type.Array(TagValue)),
  list: Type.Optional(Type.Array(Type.String())),
});

function certificateExpiry(file: string): { filename: string; expires: number } {
  try {
    const cert = new X509Certificate(readFileSync(file));
    return { filename: file, expires: Math.floor(new Date(cert.validTo).getTime() / 1000) };
  } catch {
    return { filename: file, expires: 0 };
  }
}

/**
 * GET/POST /system, the same on both services (spec: SystemInfo;
 * docs/upstream.md#other-gateway-routes).
 */
export async function systemRoutes(api: FastifyInstance, deps: SystemDeps): Promise<void> {
  api.get('/system', {
    schema: {
      tags: ['system'], summary: 'System information (command=info) or process resources (command=resources)',
      querystring: Type.Object({ command: Type.String({ enum: ['info', 'resources'] }) }),
      response: { 200: Type.Union([SystemInfo, Resources]), ...errorResponses },
    },
  }, async (req) => {
    const { command } = req.query as { command: 'info' | 'resources' };
    if (command === 'info') {
      return {
        version: deps.version,
        uptime: Math.floor((deps.now() - deps.startedAt) / 1000),
        start: Math.floor(deps.startedAt / 1000),
        os: `${type()} ${release()}`,
        processors: cpus().length,
        hostname: hostname(),
        certificates: deps.certificateFiles.map(certificateExpiry),
      };
    }
    const mem = process.memoryUsage();
    const usage = process.resourceUsage();
    return {
      numberOfFileDescriptors: (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.().length ?? 0,
      currRealMem: mem.rss, peakRealMem: usage.maxRSS * 1024, currVirtMem: mem.heapTotal + mem.external, peakVirtMem: usage.maxRSS * 1024,
    };
  });

  api.post('/system', {
    // The command is matched without regard to case, so the schema takes any text; these are the ones it knows.
    config: { openapi: { body: { enums: { command: ['setloglevel', 'getloglevels', 'getloglevelnames', 'getsubsystemnames'] } } } },
    schema: { tags: ['system'], summary: 'Log levels per subsystem (admin)', body: SystemPost, response: { 200: SystemPostAnswer, ...errorResponses } },
  }, async (req) => {
    const body = req.body as Static<typeof SystemPost>;
    switch (body.command.toLowerCase()) {
      case 'setloglevel': {
        if (!body.subsystems || body.subsystems.length === 0) throw badRequest('subsystems', 'setloglevel needs subsystems: [{tag, value}].');
        for (const [i, { tag, value }] of body.subsystems.entries()) {
          if (tag !== 'all' && !(SUBSYSTEMS as readonly string[]).includes(tag)) throw badRequest(`subsystems[${i}].tag`, `Unknown subsystem '${tag}'; known: all, ${SUBSYSTEMS.join(', ')}.`);
          if (!(LEVEL_NAMES as string[]).includes(value)) throw badRequest(`subsystems[${i}].value`, `Unknown level '${value}'; known: ${LEVEL_NAMES.join(', ')}.`);
        }
        for (const { tag, value } of body.subsystems) deps.logging.setLevel(tag as Subsystem | 'all', value as LevelWithSilent);
        return { taglist: deps.logging.levels() };
      }
      case 'getloglevels':
        return { tagList: deps.logging.levels() };
      case 'getloglevelnames':
        return { list: LEVEL_NAMES };
      case 'getsubsystemnames':
        return { list: [...SUBSYSTEMS] };
      default:
        throw badRequest('command', `Unknown system command '${body.command}'; known: setloglevel, getloglevels, getloglevelnames, getsubsystemnames.`);
    }
  });
}
