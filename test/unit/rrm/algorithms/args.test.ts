import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../../src/rrm/algorithms/args.js';
import { listAlgorithms, resolveMode, runAlgorithm } from '../../../../src/rrm/algorithms/registry.js';
import { emptyModel } from '../../../../src/rrm/model/types.js';
import { AirtwinError } from '../../../../src/errors.js';

function errorOf(fn: () => unknown): AirtwinError {
  try { fn(); } catch (e) { if (e instanceof AirtwinError) return e; throw e; }
  throw new Error('expected an error');
}

describe('args parsing (as upstream RRMAlgorithm.parse)', () => {
  it('skips empty segments', () => {
    expect(parseArgs('')).toEqual({});
    expect(parseArgs(',,')).toEqual({});
    expect(parseArgs(undefined)).toEqual({});
    expect(parseArgs('mode=random,,a=b')).toEqual({ mode: 'random', a: 'b' });
  });

  it('splits at the first = and allows empty keys and values', () => {
    expect(parseArgs('a=')).toEqual({ a: '' });
    expect(parseArgs('=b')).toEqual({ '': 'b' });
    expect(parseArgs('a=b=c')).toEqual({ a: 'b=c' });
  });

  it('rejects a segment without = and a repeated key, naming them', () => {
    const e = errorOf(() => parseArgs('mode=random,oops'));
    expect([e.status, e.details]).toEqual([400, 'args']);
    expect(e.message).toContain("'oops'");
    expect(errorOf(() => parseArgs('a=1,a=2')).message).toContain("'a'");
  });
});

describe('algorithm registry', () => {
  const base = { model: emptyModel(), zone: { name: 'z', serials: [] }, configs: new Map(), seed: '7' };

  it('lists OptimizeChannel and OptimizeTxPower with the upstream format and samples', () => {
    const list = listAlgorithms('https://example.test/help');
    expect(list.map((a) => a.shortName)).toEqual(['OptimizeChannel', 'OptimizeTxPower']);
    expect(list[0]).toMatchObject({ name: 'Optimize channel configuration', parameterSamples: ['mode=random', 'key1=val1,key2=val2'], helper: 'https://example.test/help' });
    expect(new RegExp(`^${list[0]!.parameterFormat}$`).test('mode=random,seed=3')).toBe(true);
  });

  it('resolves the default mode only when allowed', () => {
    expect(resolveMode('OptimizeChannel', undefined, true)).toBe('unmanaged_aware');
    expect(resolveMode('OptimizeTxPower', '', true)).toBe('measure_ap_ap');
    expect(errorOf(() => resolveMode('OptimizeChannel', undefined, false)).message)
      .toBe("Unknown mode '' provided for algorithm 'OptimizeChannel'");
    expect(errorOf(() => resolveMode('OptimizeTxPower', 'least_used', true)).message)
      .toBe("Unknown mode 'least_used' provided for algorithm 'OptimizeTxPower'");
  });

  it('rejects an unknown algorithm (case-sensitive)', () => {
    expect(errorOf(() => runAlgorithm({ ...base, algorithm: 'optimizechannel', allowDefaultMode: true })).details).toBe('algorithm');
  });

  it('rejects bad argument values and unknown arguments, naming the argument', () => {
    const run = (args: string) => () => runAlgorithm({ ...base, algorithm: 'OptimizeTxPower', args, allowDefaultMode: true });
    expect(errorOf(run('mode=measure_ap_client,targetMcs=12')).details).toBe('args.targetMcs');
    expect(errorOf(run('mode=measure_ap_client,targetMcs=-1')).details).toBe('args.targetMcs');
    expect(errorOf(run('mode=measure_ap_client,targetMcs=x')).details).toBe('args.targetMcs');
    expect(errorOf(run('coverageThreshold=31')).details).toBe('args.coverageThreshold');
    expect(errorOf(run('nthSmallestRssi=-1')).details).toBe('args.nthSmallestRssi');
    expect(errorOf(run('mode=random,setDifferentTxPowerPerAp=maybe')).details).toBe('args.setDifferentTxPowerPerAp');
    expect(errorOf(run('mode=random,targetMcs=3')).details).toBe('args.targetMcs');
  });

  it('runs with an empty model, returns the seed it used (args seed wins)', () => {
    const out = runAlgorithm({ ...base, algorithm: 'OptimizeChannel', args: 'seed=42', allowDefaultMode: true });
    expect(out).toEqual({ algorithm: 'OptimizeChannel', mode: 'unmanaged_aware', kind: 'channel', seed: '42', plan: {} });
    expect(runAlgorithm({ ...base, algorithm: 'OptimizeTxPower', args: { mode: 'random' }, allowDefaultMode: false }).seed).toBe('7');
  });
});
