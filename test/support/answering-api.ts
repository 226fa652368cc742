import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';

/** An answer of success carrying `content`, as the engine gives it. */
export function okAnswer<T>(content: T): Promise<ApiResult<T>> {
  return Promise.resolve({ status: 200, envelope: { Content: content, Success: true, Errors: null } });
}

/**
 * An IntegrationApi whose every route succeeds at once, for tests of what sits around it (the
 * server, faults); `onUser` sees each POST /user body.
 */
export function answeringApi(onUser: (body: unknown) => void = () => undefined): IntegrationApi {
  return {
    createSchedule: () => okAnswer('S-1'),
    getReviewSession: (id) => okAnswer({ ExternalId: id, Results: [] }),
    addCollection: () => okAnswer({ ExternalId: 'c1', Errors: [] }),
    upsertUser: (body) => {
      onUser(body);
      return okAnswer({ User: body as never, GroupErrors: [] });
    },
    removeInvigilators: (_id, ids) => okAnswer({ SuccessfullyRemoved: ids, Errors: [] }),
    close: () => Promise.resolve(),
  };
}
