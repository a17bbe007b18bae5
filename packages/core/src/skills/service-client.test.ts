import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type SkillServiceTestServer,
  startSkillServiceTestServer,
} from '../testing/skill-service.js';
import { createSkillServiceClient, normalizeSkillServiceUrl } from './service-client.js';

let service: SkillServiceTestServer | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const skill = (name: string) => ({
  name,
  description: `${name} skill`,
  files: { 'SKILL.md': `---\nname: ${name}\ndescription: ${name} skill\n---\n` },
});

describe('Skill Service client (direct REST)', () => {
  it('lists spaces by Id/Name, every page of skills, and premade skills; sends the token and account', async () => {
    service = await startSkillServiceTestServer({
      token: 'tok-123',
      maxPageSize: 2,
      spaces: [
        { id: 'team', name: 'Team', skills: ['a', 'b', 'c', 'd', 'e'].map(skill) },
        { id: 'other', skills: [] },
      ],
      publicSkills: [skill('pub')],
    });
    const client = createSkillServiceClient({
      baseUrl: service.url,
      token: 'tok-123',
      accountId: '42',
    });
    expect(client.kop).toBe(false);
    expect(await client.listSpaces()).toEqual([
      { space_id: 'team', space_name: 'Team', description: '' },
      { space_id: 'other', space_name: 'other', description: '' },
    ]);
    expect(service.requests[0]!.query).toEqual({ PageNumber: '1', PageSize: '20' });
    const skills = await client.listSkills('team');
    expect(skills.map((ref) => ref.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(skills[0]).toMatchObject({
      skillId: 'a-id',
      versionId: 'v1',
      spaceId: 'team',
      contentHash: { algorithm: 'sha256' },
    });
    expect(
      service.requests
        .filter((r) => r.action === 'ListSkillsBySpaceId')
        .map((r) => r.query['PageNumber']),
    ).toEqual(['1', '2', '3']);
    const premade = await client.listPublicSkills();
    expect(premade).toMatchObject({
      spaceId: 'public',
      spaceName: 'Public Skills',
      skills: [{ name: 'pub', versionId: '' }],
    });
    expect(await client.downloadUrl(skills[0]!)).toMatch(/\/archives\/a\.zip$/);
    expect(await client.downloadUrl(premade.skills[0]!)).toMatch(/\/archives\/pub\.zip$/);
    expect(service.requests.at(-1)!.action).toBe('GetPremadeSkillDownloadUrl');
    expect(
      service.requests.every((r) => r.authorization === 'Bearer tok-123' && r.accountId === '42'),
    ).toBe(true);
  });

  it('reports a non-zero code with the request id, and never the token', async () => {
    service = await startSkillServiceTestServer({ token: 'secret-token-value', spaces: [] });
    const client = createSkillServiceClient({ baseUrl: service.url, token: 'wrong' });
    const error = await client.listSkills('team').catch((caught: Error) => caught);
    expect(error).toMatchObject({ errorType: 'skill_service_error' });
    expect((error as Error).message).toMatch(/code=401, request_id=req-401/);
    expect((error as Error).message).not.toContain('secret-token-value');
    const missing = createSkillServiceClient({ baseUrl: service.url, token: 'secret-token-value' });
    await expect(missing.listSkills('nope')).rejects.toThrow(/code=404/);
  });

  it('stops paging when a server ignores PageNumber, and refuses oversized or non-JSON answers', async () => {
    let calls = 0;
    const server = createServer((request, response) => {
      calls += 1;
      if (request.url?.startsWith('/big')) {
        response.end(JSON.stringify({ Code: 0, Data: { Skills: [], pad: 'x'.repeat(100_000) } }));
        return;
      }
      if (request.url?.startsWith('/text')) {
        response.end('<html>');
        return;
      }
      response.end(
        JSON.stringify({
          Code: 0,
          Data: { Skills: Array.from({ length: 100 }, (_, i) => ({ Name: `s${i}` })) },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = createSkillServiceClient({ baseUrl: origin });
      expect(await client.listSkills('x')).toHaveLength(100);
      expect(calls).toBe(2);
      await expect(
        createSkillServiceClient({ baseUrl: `${origin}/big`, maxResponseBytes: 10_000 }).listSkills(
          'x',
        ),
      ).rejects.toMatchObject({ errorType: 'too_large' });
      await expect(
        createSkillServiceClient({ baseUrl: `${origin}/text` }).listSkills('x'),
      ).rejects.toThrow(/did not answer JSON/);
      await expect(
        createSkillServiceClient({ baseUrl: 'http://127.0.0.1:1' }).listSkills('x'),
      ).rejects.toMatchObject({ errorType: 'skill_service_unreachable' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a reply that breaks off or stalls mid-body is a Skill Service error, never a raw one', async () => {
    const server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"Code":0,"Data":{"Skills":[');
      if (request.url?.startsWith('/reset')) setTimeout(() => response.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(
        createSkillServiceClient({ baseUrl: `${origin}/reset` }).listSkills('x'),
      ).rejects.toMatchObject({ errorType: 'skill_service_unreachable' });
      await expect(
        createSkillServiceClient({ baseUrl: `${origin}/stall`, timeoutMs: 300 }).listSkills('x'),
      ).rejects.toMatchObject({ errorType: 'skill_service_timeout' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('normalises docs and OpenAPI URLs and joins actions under the base path', () => {
    expect(normalizeSkillServiceUrl('https://host.example/skill/docs#/default')).toBe(
      'https://host.example/skill/api/v1',
    );
    expect(normalizeSkillServiceUrl('https://host.example/api/v1/openapi.json?x=1')).toBe(
      'https://host.example/api/v1',
    );
    expect(normalizeSkillServiceUrl('http://user:pw@host.example/api/v1/')).toBe(
      'http://host.example/api/v1',
    );
    expect(() => normalizeSkillServiceUrl('file:///etc/passwd')).toThrow(/http or https/);
  });
});

describe('Skill Service client (KOP)', () => {
  const capture = () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      seen.push({ url, headers: init.headers as Record<string, string> });
      return new Response(JSON.stringify({ Code: 0, Data: { Skills: [] } }));
    }) as typeof fetch;
    return { seen, fetchImpl };
  };

  it('signs requests with SigV4 only for https on the three exact AICP hosts', async () => {
    const { seen, fetchImpl } = capture();
    const kop = createSkillServiceClient({
      baseUrl: 'https://aicp.api.ksyun.com',
      accessKey: 'AK',
      secretKey: 'SK',
      region: 'pre-online',
      fetch: fetchImpl,
    });
    expect(kop.kop).toBe(true);
    await kop.listSkills('team');
    const { url, headers } = seen[0]!;
    expect(url).toMatch(
      /^https:\/\/aicp\.api\.ksyun\.com\/\?Action=ListSkillsBySpaceId&Version=2024-06-12&SpaceId=team&PageNumber=1&PageSize=100$/,
    );
    expect(headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AK\/\d{8}\/cn-beijing-6\/aicp\/aws4_request/,
    );
    expect(headers).toMatchObject({
      'x-action': 'ListSkillsBySpaceId',
      'x-ksc-region': 'cn-beijing-6',
      'x-ksc-custom-source': 'pre',
      'x-ksc-source': 'ksadk-skill-runtime',
    });

    for (const lookalike of [
      'https://aicp.api.ksyun.com.evil.example',
      'http://aicp.api.ksyun.com',
      'https://evil-aicp.api.ksyun.com',
    ]) {
      const { seen: direct, fetchImpl: directFetch } = capture();
      const client = createSkillServiceClient({
        baseUrl: lookalike,
        accessKey: 'AK',
        secretKey: 'SK',
        fetch: directFetch,
      });
      expect(client.kop).toBe(false);
      await client.listSkills('team');
      expect(direct[0]!.headers['authorization']).toBeUndefined();
      expect(direct[0]!.url).toContain('/ListSkillsBySpaceId?');
    }
  });

  it('fails without credentials, naming the variables', async () => {
    const { fetchImpl } = capture();
    const client = createSkillServiceClient({
      baseUrl: 'https://aicp.inner.api.ksyun.com',
      fetch: fetchImpl,
    });
    await expect(client.listSkills('team')).rejects.toThrow(/KSADK_SKILL_SERVICE_ACCESS_KEY/);
  });
});
