import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSkillArchive } from './zip-writer.js';

/** A skill served by {@link startSkillServiceTestServer}. */
export interface TestSkill {
  name: string;
  description?: string;
  version?: string;
  /** @default `<name>-id` */
  skillId?: string;
  /** @default `v1` (premade skills: none) */
  versionId?: string;
  status?: string;
  aliases?: string[];
  tags?: string[];
  /** Skill-relative files, packed under a folder named for the skill. */
  files?: Record<string, string | Uint8Array>;
  /** A ready archive instead of `files` (hostile archives, say). */
  archive?: Uint8Array;
  /** The content hash the listing reports: computed (default), a fixed string, or none. */
  contentHash?: string | null;
}

/** A skill space of the test service. */
export interface TestSkillSpace {
  id: string;
  name?: string;
  description?: string;
  skills: TestSkill[];
}

/** Options for {@link startSkillServiceTestServer}. */
export interface SkillServiceTestServerOptions {
  spaces?: TestSkillSpace[];
  /** Premade skills (`ListAvailablePremadeSkills`). */
  publicSkills?: TestSkill[];
  /** Bearer token every API request must carry. @default none required */
  token?: string;
  /** Skills per page the server really returns (it honours `PageSize` up to this). @default 100 */
  maxPageSize?: number;
}

/** One request the test service saw. */
export interface SkillServiceRequest {
  action: string;
  query: Record<string, string>;
  authorization: string | undefined;
  accountId: string | undefined;
}

/** A running Skill Service fake. */
export interface SkillServiceTestServer {
  /** The base URL to configure (`KSADK_SKILL_SERVICE_URL`): `http://127.0.0.1:<port>/api/v1`. */
  readonly url: string;
  /** API requests, in order (archive downloads are in `downloads`). */
  readonly requests: SkillServiceRequest[];
  /** Archive downloads: path and the headers that came with them. */
  readonly downloads: { path: string; authorization: string | undefined }[];
  /** The archive served for a skill (by name), to compare hashes. */
  archiveOf(name: string): Buffer;
  close(): Promise<void>;
}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * Starts a Skill Service on 127.0.0.1 that implements the direct REST contract the KsADK skill
 * tools and runtime use — `ListSkillSpaces`, `ListSkillsBySpaceId` (paginated),
 * `ListAvailablePremadeSkills`, `GetSkillDownloadUrl`, `GetPremadeSkillDownloadUrl` — and serves
 * real zip archives. For tests and offline development: nothing leaves the machine.
 *
 * @example
 * ```ts
 * const service = await startSkillServiceTestServer({
 *   spaces: [{ id: 'team', skills: [{ name: 'report', description: 'Writes reports.', files: { 'SKILL.md': '---\nname: report\ndescription: Writes reports.\n---\nSteps…' } }] }],
 * });
 * process.env.KSADK_SKILL_SERVICE_URL = service.url;
 * process.env.KSADK_SKILL_SPACE_IDS = 'team';
 * ```
 */
export async function startSkillServiceTestServer(
  options: SkillServiceTestServerOptions = {},
): Promise<SkillServiceTestServer> {
  const archives = new Map<string, Buffer>();
  const archiveFor = (skill: TestSkill): Buffer => {
    const existing = archives.get(skill.name);
    if (existing) return existing;
    const archive = skill.archive
      ? Buffer.from(skill.archive)
      : createSkillArchive(skill.name, skill.files ?? {});
    archives.set(skill.name, archive);
    return archive;
  };
  const describe = (skill: TestSkill, premade: boolean): Record<string, unknown> => {
    const archive = archiveFor(skill);
    const versionId = premade ? (skill.versionId ?? '') : (skill.versionId ?? 'v1');
    return {
      SkillId: skill.skillId ?? `${skill.name}-id`,
      ...(versionId ? { VersionId: versionId } : {}),
      Name: skill.name,
      Description: skill.description ?? '',
      Version: skill.version ?? '1.0.0',
      Status: skill.status ?? 'active',
      ...(skill.aliases ? { Aliases: skill.aliases } : {}),
      ...(skill.tags ? { Tags: skill.tags } : {}),
      ...(skill.contentHash === null
        ? {}
        : { ContentHash: skill.contentHash ?? `sha256:${sha256(archive)}` }),
    };
  };
  const spaces = options.spaces ?? [];
  const publicSkills = options.publicSkills ?? [];
  const maxPageSize = options.maxPageSize ?? 100;
  const requests: SkillServiceRequest[] = [];
  const downloads: { path: string; authorization: string | undefined }[] = [];
  let base = '';

  const page = <T>(items: T[], query: Record<string, string>): { items: T[]; total: number } => {
    const size = Math.min(
      maxPageSize,
      Math.max(1, Number(query['PageSize'] ?? maxPageSize) || maxPageSize),
    );
    const number = Math.max(1, Number(query['PageNumber'] ?? 1) || 1);
    return { items: items.slice((number - 1) * size, number * size), total: items.length };
  };
  const findSkill = (query: Record<string, string>): TestSkill | undefined =>
    [...spaces.flatMap((space) => space.skills), ...publicSkills].find(
      (skill) =>
        (skill.skillId ?? `${skill.name}-id`) === query['SkillId'] ||
        (!query['SkillId'] && skill.name === query['Name']),
    );

  const handle = (request: IncomingMessage, response: ServerResponse): true => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: unknown): true => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
      return true;
    };
    if (url.pathname.startsWith('/archives/')) {
      downloads.push({ path: url.pathname, authorization: request.headers.authorization });
      const name = decodeURIComponent(
        url.pathname.slice('/archives/'.length).replace(/\.zip$/, ''),
      );
      const archive = archives.get(name);
      if (!archive) return send(404, { Code: 404, Message: 'no such archive' });
      response.writeHead(200, {
        'content-type': 'application/zip',
        'content-length': String(archive.length),
      });
      response.end(archive);
      return true;
    }
    const action = url.pathname.replace(/^\/api\/v1\//, '');
    const query = Object.fromEntries(url.searchParams);
    requests.push({
      action,
      query,
      authorization: request.headers.authorization,
      accountId: request.headers['x-ksc-account-id'] as string | undefined,
    });
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`)
      return send(401, { Code: 401, Message: 'unauthorized', RequestId: 'req-401' });
    switch (action) {
      case 'ListSkillSpaces': {
        const { items, total } = page(spaces, query);
        return send(200, {
          Code: 0,
          Data: {
            TotalCount: total,
            Items: items.map((space) => ({
              Id: space.id,
              Name: space.name ?? space.id,
              Description: space.description ?? '',
            })),
          },
        });
      }
      case 'ListSkillsBySpaceId': {
        const space = spaces.find((candidate) => candidate.id === query['SpaceId']);
        if (!space)
          return send(200, { Code: 404, Message: 'space not found', RequestId: 'req-404' });
        const { items, total } = page(space.skills, query);
        return send(200, {
          Code: 0,
          Data: {
            SkillSpaceId: space.id,
            TotalCount: total,
            Skills: items.map((skill) => describe(skill, false)),
          },
        });
      }
      case 'ListAvailablePremadeSkills':
        return send(200, {
          Code: 0,
          Data: {
            SkillSpaceId: 'public',
            Skills: publicSkills.map((skill) => describe(skill, true)),
          },
        });
      case 'GetSkillDownloadUrl':
      case 'GetPremadeSkillDownloadUrl': {
        const skill = findSkill(query);
        if (!skill) return send(200, { Code: 404, Message: 'skill not found' });
        archiveFor(skill);
        return send(200, {
          Code: 0,
          Data: { DownloadUrl: `${base}/archives/${encodeURIComponent(skill.name)}.zip` },
        });
      }
      default:
        return send(404, { Code: 404, Message: `unknown action ${action.slice(0, 40)}` });
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/api/v1`,
    requests,
    downloads,
    archiveOf: (name) => {
      const archive = archives.get(name);
      if (!archive) throw new Error(`no archive for ${name}`);
      return archive;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
