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

/** The fake's skills and what it has seen and served. */
interface FakeService {
  readonly spaces: TestSkillSpace[];
  readonly publicSkills: TestSkill[];
  readonly token: string | undefined;
  readonly maxPageSize: number;
  /** Archives by skill name, made on first use. */
  readonly archives: Map<string, Buffer>;
  readonly requests: SkillServiceRequest[];
  readonly downloads: SkillServiceTestServer['downloads'];
  /** `http://127.0.0.1:<port>`, once listening. */
  base: string;
}

/** A JSON reply: its HTTP status and body. */
interface Reply {
  status: number;
  body: unknown;
}

function archiveFor(service: FakeService, skill: TestSkill): Buffer {
  const existing = service.archives.get(skill.name);
  if (existing) return existing;
  const archive = skill.archive
    ? Buffer.from(skill.archive)
    : createSkillArchive(skill.name, skill.files ?? {});
  service.archives.set(skill.name, archive);
  return archive;
}

/** A skill as the listings show it (premade skills have no version id unless given one). */
function describeSkill(
  service: FakeService,
  skill: TestSkill,
  premade: boolean,
): Record<string, unknown> {
  const archive = archiveFor(service, skill);
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
}

/** The page `query` asks for (`PageNumber`, `PageSize` up to `maxPageSize`) and the total. */
function page<T>(
  items: T[],
  query: Record<string, string>,
  maxPageSize: number,
): { items: T[]; total: number } {
  const size = Math.min(
    maxPageSize,
    Math.max(1, Number(query['PageSize'] ?? maxPageSize) || maxPageSize),
  );
  const number = Math.max(1, Number(query['PageNumber'] ?? 1) || 1);
  return { items: items.slice((number - 1) * size, number * size), total: items.length };
}

const findSkill = (service: FakeService, query: Record<string, string>): TestSkill | undefined =>
  [...service.spaces.flatMap((space) => space.skills), ...service.publicSkills].find(
    (skill) =>
      (skill.skillId ?? `${skill.name}-id`) === query['SkillId'] ||
      (!query['SkillId'] && skill.name === query['Name']),
  );

/** The reply to one API action. */
function actionReply(service: FakeService, action: string, query: Record<string, string>): Reply {
  const ok = (body: unknown): Reply => ({ status: 200, body });
  switch (action) {
    case 'ListSkillSpaces': {
      const { items, total } = page(service.spaces, query, service.maxPageSize);
      return ok({
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
      const space = service.spaces.find((candidate) => candidate.id === query['SpaceId']);
      if (!space) return ok({ Code: 404, Message: 'space not found', RequestId: 'req-404' });
      const { items, total } = page(space.skills, query, service.maxPageSize);
      return ok({
        Code: 0,
        Data: {
          SkillSpaceId: space.id,
          TotalCount: total,
          Skills: items.map((skill) => describeSkill(service, skill, false)),
        },
      });
    }
    case 'ListAvailablePremadeSkills':
      return ok({
        Code: 0,
        Data: {
          SkillSpaceId: 'public',
          Skills: service.publicSkills.map((skill) => describeSkill(service, skill, true)),
        },
      });
    case 'GetSkillDownloadUrl':
    case 'GetPremadeSkillDownloadUrl': {
      const skill = findSkill(service, query);
      if (!skill) return ok({ Code: 404, Message: 'skill not found' });
      archiveFor(service, skill);
      return ok({
        Code: 0,
        Data: { DownloadUrl: `${service.base}/archives/${encodeURIComponent(skill.name)}.zip` },
      });
    }
    default:
      return { status: 404, body: { Code: 404, Message: `unknown action ${action.slice(0, 40)}` } };
  }
}

const sendJson = (response: ServerResponse, { status, body }: Reply): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/** An archive download (recorded in `downloads`): the archive, or a 404. */
function serveArchive(
  service: FakeService,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  service.downloads.push({ path: url.pathname, authorization: request.headers.authorization });
  const name = decodeURIComponent(url.pathname.slice('/archives/'.length).replace(/\.zip$/, ''));
  const archive = service.archives.get(name);
  if (!archive) {
    sendJson(response, { status: 404, body: { Code: 404, Message: 'no such archive' } });
    return;
  }
  response.writeHead(200, {
    'content-type': 'application/zip',
    'content-length': String(archive.length),
  });
  response.end(archive);
}

/** An API call (recorded in `requests`): a 401 without the token, else the action's reply. */
function apiReply(service: FakeService, url: URL, request: IncomingMessage): Reply {
  const action = url.pathname.replace(/^\/api\/v1\//, '');
  const query = Object.fromEntries(url.searchParams);
  service.requests.push({
    action,
    query,
    authorization: request.headers.authorization,
    accountId: request.headers['x-ksc-account-id'] as string | undefined,
  });
  if (service.token && request.headers.authorization !== `Bearer ${service.token}`)
    return { status: 401, body: { Code: 401, Message: 'unauthorized', RequestId: 'req-401' } };
  return actionReply(service, action, query);
}

/** One request: an archive download, else an API call. */
function handle(service: FakeService, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname.startsWith('/archives/')) serveArchive(service, url, request, response);
  else sendJson(response, apiReply(service, url, request));
}

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
  const service: FakeService = {
    spaces: options.spaces ?? [],
    publicSkills: options.publicSkills ?? [],
    token: options.token,
    maxPageSize: options.maxPageSize ?? 100,
    archives: new Map(),
    requests: [],
    downloads: [],
    base: '',
  };
  const server = createServer((request, response) => handle(service, request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${service.base}/api/v1`,
    requests: service.requests,
    downloads: service.downloads,
    archiveOf: (name) => {
      const archive = service.archives.get(name);
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
