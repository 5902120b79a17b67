import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALL_CHANNELS, BANDS, CHANNEL_WIDTHS, bandOfFrequency, blockOf, blockPrimaries, centreChannel, centreFrequency,
  channelToFrequency, channelsFor, frequencyToChannel, is6GhzPsc, isDfsChannel, isValidPrimary, maxTxPowerDbm,
  regulatoryDomain, stateChannelLists, type Band,
} from '../../src/protocol/wifi-channels.js';

const SEED = 20260105;
const channelArb = fc.constantFrom(...BANDS).chain((band) => fc.record({ band: fc.constant(band), channel: fc.constantFrom(...ALL_CHANNELS[band]) }));

describe('wifi-channels (property, seed 20260105)', () => {
  it('channel -> frequency -> channel round-trips on every band', () => {
    fc.assert(fc.property(channelArb, ({ band, channel }) => {
      const f = channelToFrequency(band, channel)!;
      expect(frequencyToChannel(f)).toEqual({ band, channel });
      expect(bandOfFrequency(f)).toBe(band);
    }), { seed: SEED });
  });

  it('a block holds its primary, width/20 adjacent channels, and its centre is their middle', () => {
    fc.assert(fc.property(channelArb, fc.constantFrom(...CHANNEL_WIDTHS), ({ band, channel }, width) => {
      const b = blockOf(band, channel, width);
      if (!b) return;
      expect(b.channels).toContain(channel);
      expect(b.channels).toHaveLength(width / 20);
      for (let i = 1; i < b.channels.length; i++) expect(b.channels[i]! - b.channels[i - 1]!).toBe(4);
      expect(b.centre).toBe((b.channels[0]! + b.channels.at(-1)!) / 2);
      expect(centreChannel(band, channel, width)).toBe(b.centre);
      const first = channelToFrequency(band, b.channels[0]!)!;
      const last = channelToFrequency(band, b.channels.at(-1)!)!;
      expect(centreFrequency(band, channel, width)).toBe((first + last) / 2);
      // 5/6 GHz blocks partition the band: every member names the same block. (2.4 GHz 40 MHz
      // pairs overlap, HT40+ or HT40- by primary, so they do not.)
      if (band !== '2G') for (const c of b.channels) expect(blockOf(band, c, width)).toEqual(b);
      const lists = stateChannelLists(band, channel, width)!;
      expect(lists.channels[0]).toBe(channel);
      expect(lists.frequency[0]).toBe(channelToFrequency(band, channel));
      if (width > 20 && band !== '2G') expect(lists.frequency[1]).toBe(b.centreFrequency);
    }), { seed: SEED });
  });

  it('block primaries are valid primaries whose block lies inside the allowed set', () => {
    fc.assert(fc.property(fc.constantFrom('US', 'CA', 'DE', 'FR', 'GB', 'JP', 'ZZ'), fc.constantFrom<Band>('5G', '6G'), fc.constantFrom(...CHANNEL_WIDTHS), (country, band, width) => {
      const allowed = channelsFor(country, band);
      for (const p of blockPrimaries(band, width, allowed)) {
        expect(isValidPrimary(band, p, width, allowed)).toBe(true);
        expect(blockOf(band, p, width)!.channels[0]).toBe(p);
        for (const c of blockOf(band, p, width)!.channels) expect(allowed).toContain(c);
      }
    }), { seed: SEED });
  });

  it('matches the published tables (fw and RRM)', () => {
    expect(blockPrimaries('5G', 80, channelsFor('US', '5G'))).toEqual([36, 52, 100, 116, 132, 149]);
    expect(blockPrimaries('5G', 40, channelsFor('US', '5G'))).toEqual([36, 44, 52, 60, 100, 108, 116, 124, 132, 140, 149, 157]);
    expect(blockPrimaries('5G', 160, channelsFor('US', '5G'))).toEqual([36, 100]);
    expect(stateChannelLists('5G', 149, 80)).toEqual({ channels: [149, 155], frequency: [5745, 5775] });
    expect(stateChannelLists('2G', 11, 20)).toEqual({ channels: [11], frequency: [2462] });
    expect(centreChannel('5G', 44, 40)).toBe(46);
    expect(frequencyToChannel(2484)).toEqual({ band: '2G', channel: 14 });
    expect(frequencyToChannel(5935)).toEqual({ band: '6G', channel: 2 });
    expect(ALL_CHANNELS['6G'].filter(is6GhzPsc)).toHaveLength(15);
    expect(isDfsChannel('5G', 52) && isDfsChannel('5G', 144) && !isDfsChannel('5G', 149) && !isDfsChannel('5G', 48)).toBe(true);
  });

  it('regulatory sets: country specifics and a conservative world set', () => {
    expect(channelsFor('CA', '5G')).not.toContain(120);
    expect(channelsFor('DE', '2G')).toContain(13);
    expect(channelsFor('JP', '2G')).toContain(14);
    expect(regulatoryDomain('xx').domain).toBe('WORLD');
    expect(channelsFor('XX', '5G').some((c) => isDfsChannel('5G', c))).toBe(false);
    expect(channelsFor('XX', '6G')).toEqual([]);
    expect(maxTxPowerDbm('US', '5G', 149)).toBe(30);
    expect(maxTxPowerDbm('US', '5G', 36)).toBe(23);
    expect(maxTxPowerDbm('FR', '2G', 1)).toBe(20);
    expect(maxTxPowerDbm('US', '2G', 13)).toBeUndefined();
  });
});
