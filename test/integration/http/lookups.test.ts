import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

describe('GET /api/v1/ouis', () => {
  it('names the manufacturer of each MAC, echoing the MAC as sent', async () => {
    const a = await s.gw('GET', '/ouis?macList=90:3c:b3:00:00:01,00-03-7F-AA-BB-CC,903cb3', { token: USER_TOKEN });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      tagList: [
        { tag: '90:3c:b3:00:00:01', value: 'Edgecore Networks Corporation' },
        { tag: '00-03-7F-AA-BB-CC', value: 'Atheros Communications, Inc.' },
        { tag: '903cb3', value: 'Edgecore Networks Corporation' },
      ],
    });
  });

  it('matches the longest registered prefix (MA-S before MA-L)', async () => {
    // 70:B3:D5 is an IEEE Registration Authority block split into 36-bit MA-S assignments.
    const a = await s.gw('GET', '/ouis?macList=70B3D5ABC123,70B3D5');
    expect(a.body.tagList[0].value).toBe('BKM-Micronic Richtfunkanlagen GmbH');
    expect(a.body.tagList[1].value).toBe('IEEE Registration Authority');
  });

  it("answers '' for an unregistered prefix", async () => {
    expect((await s.gw('GET', '/ouis?macList=ffffff000000')).body).toEqual({ tagList: [{ tag: 'ffffff000000', value: '' }] });
  });

  it.each([
    ['a missing macList', '/ouis', 'querystring.macList'],
    ['an empty macList', '/ouis?macList=', 'macList'],
    ['a list of commas', '/ouis?macList=,,', 'macList'],
    ['a non-hex MAC', '/ouis?macList=903cb3000001,zz:zz:zz', 'macList[1]'],
    ['too few digits', '/ouis?macList=90:3c', 'macList[0]'],
    ['too many digits', '/ouis?macList=903cb30000011', 'macList[0]'],
  ])('answers 400 for %s', async (_what, path, field) => {
    expect(expectEnvelope(await s.gw('GET', path), 400).ErrorDetails).toBe(field);
  });

  it('answers 401 without a token', async () => {
    expectEnvelope(await s.gw('GET', '/ouis?macList=903cb3', { token: null }), 401);
  });
});

describe('GET /api/v1/iptocountry', () => {
  it('answers one ISO country code per IP, in order, IPv4 and IPv6', async () => {
    const a = await s.gw('GET', '/iptocountry?iplist=8.8.8.8,2a00:1450::1,::ffff:81.2.69.160', { token: USER_TOKEN });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ enabled: true, countryCodes: ['US', 'IE', 'GB'] });
  });

  it("answers '' for private, loopback and reserved addresses", async () => {
    const a = await s.gw('GET', '/iptocountry?iplist=10.1.2.3,192.168.0.1,127.0.0.1,::1,0.0.0.0');
    expect(a.body.countryCodes).toEqual(['', '', '', '', '']);
  });

  it('tolerates spaces around the commas', async () => {
    expect((await s.gw('GET', '/iptocountry?iplist=8.8.8.8%2C%2010.0.0.1')).body.countryCodes).toEqual(['US', '']);
  });

  it.each([
    ['a missing iplist', '/iptocountry', 'querystring.iplist'],
    ['an empty iplist', '/iptocountry?iplist=', 'iplist'],
    ['a malformed IPv4', '/iptocountry?iplist=8.8.8.8,1.2.3', 'iplist[1]'],
    ['an out-of-range octet', '/iptocountry?iplist=256.1.1.1', 'iplist[0]'],
    ['a host name', '/iptocountry?iplist=example.com', 'iplist[0]'],
    ['a CIDR block', '/iptocountry?iplist=10.0.0.0/8', 'iplist[0]'],
  ])('answers 400 for %s, naming it', async (_what, path, field) => {
    const e = expectEnvelope(await s.gw('GET', path), 400);
    expect(e.ErrorDetails).toBe(field);
  });

  it('refuses more than 1000 addresses in one request', async () => {
    const list = Array.from({ length: 1001 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',');
    expect(expectEnvelope(await s.gw('GET', `/iptocountry?iplist=${list}`), 400).ErrorDetails).toBe('iplist');
  });
});
