import { Ajv } from 'ajv';
import type { FastifyError, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { validationError, withDeviceState } from '../../../src/server/teaching-errors.js';
import { airtwinError } from '../../../src/errors.js';

/** The errors Fastify hands the error handler when `body` fails `schema`. */
function failure(schema: object, body: unknown): FastifyError {
  const validate = new Ajv({ allErrors: false, strict: false }).compile(schema);
  expect(validate(body)).toBe(false);
  return Object.assign(new Error('invalid'), { validation: validate.errors ?? [], validationContext: 'body' }) as unknown as FastifyError;
}

const request = (body: unknown) => ({ body }) as FastifyRequest;

describe('validationError', () => {
  it('lists the values of a union of literals, as TypeBox compiles it (anyOf of const)', () => {
    const schema = Type.Object({ band: Type.Union([Type.Literal('2G'), Type.Literal('5G'), Type.Literal('6G')]) });
    const e = validationError(failure(schema, { band: '7G' }), request({ band: '7G' }));
    expect(e.details).toBe('body.band');
    expect(e.message).toBe("body.band must be one of '2G', '5G', '6G', not '7G'.");
  });

  it('lists the values of an enum nested in an array', () => {
    const schema = Type.Object({ radios: Type.Array(Type.Object({ mode: Type.String({ enum: ['a', 'b'] }) })) });
    const body = { radios: [{ mode: 'a' }, { mode: 'c' }] };
    const e = validationError(failure(schema, body), request(body));
    expect(e.details).toBe('body.radios.1.mode');
    expect(e.message).toBe("body.radios.1.mode must be one of 'a', 'b', not 'c'.");
  });

  it('keeps the validator\'s sentence for other failures', () => {
    const schema = Type.Object({ n: Type.Integer({ maximum: 2 }) });
    expect(validationError(failure(schema, { n: 3 }), request({ n: 3 })).message).toBe('body.n must be <= 2.');
  });
});

describe('withDeviceState', () => {
  const answer = { status: 409, body: { ErrorCode: 409, ErrorDetails: 'ping', ErrorDescription: '...' } };
  it('adds busy or offline to a 409 about a device, and nothing to other errors', () => {
    expect(withDeviceState(answer, airtwinError('DEVICE_BUSY', 'ping')).body).toMatchObject({ DeviceState: 'busy' });
    expect(withDeviceState(answer, airtwinError('DEVICE_OFFLINE', 'ping')).body).toMatchObject({ DeviceState: 'offline' });
    expect(withDeviceState(answer, airtwinError('ALREADY_EXISTS', 'serialNumber')).body).not.toHaveProperty('DeviceState');
  });
});
