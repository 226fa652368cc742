import { ErrorCode, type ProblemCode } from '../domain/codes.js';
import { problem, type Problem } from '../domain/problem.js';
import type { CollectionRequest, CollectionResponseContent, IdTitle } from '../domain/types.js';
import type { WorldCollection, WorldLoRepository, WorldSettings, WorldTaxonomy, WorldUser } from '../domain/world.js';
import { accept, refuse, withoutUndefined, type Decision } from './decision.js';
import { SETTINGS_KEY, type EngineView } from './view.js';

/** POST /collections over a validated request (docs/interpretations.md, "Collections"). */
export function decideCollection(
  view: EngineView,
  request: CollectionRequest,
  generatedExternalId: string,
): Decision<CollectionResponseContent> {
  const problems: Problem[] = [];
  const externalId = request.ExternalId ?? generatedExternalId;
  if (view.get('collections', externalId) !== undefined) {
    problems.push(
      problem('ExternalId', ErrorCode.CollectionExternalIdTaken, `Collection ExternalId already used: ${externalId}`),
    );
  }

  const settings = view.get<WorldSettings>('settings', SETTINGS_KEY);
  const ownerName = request.Owner ?? settings?.ExternalApiOwner ?? undefined;
  let owner: WorldUser | undefined;
  const ownerFail = (code: ProblemCode, message: string) => problems.push(problem('Owner', code, message));
  if (ownerName === undefined || ownerName === '') {
    ownerFail(
      ErrorCode.CollectionOwnerNotSet,
      'Owner not set: give Owner or set the owner in the external API settings',
    );
  } else {
    const ownerKey = view.userKeyByUserName(ownerName);
    owner = ownerKey === undefined ? undefined : view.get<WorldUser>('users', ownerKey);
    if (owner === undefined) {
      ownerFail(ErrorCode.CollectionOwnerNotFound, `Owner not found: ${ownerName}`);
    } else if (owner.CanViewCollections !== true) {
      ownerFail(ErrorCode.CollectionOwnerNoPermission, `Owner ${owner.UserName} lacks permission to view collections`);
    }
  }

  const taxonomies: IdTitle[] = [];
  (request.Taxonomies ?? []).forEach((entry, index) => {
    const taxonomy = view.get<WorldTaxonomy>('taxonomies', entry.ExternalId);
    if (taxonomy === undefined) {
      problems.push(
        problem(
          `Taxonomies[${index}].ExternalId`,
          ErrorCode.TaxonomyNotFound,
          `Taxonomy not found: ${entry.ExternalId}`,
        ),
      );
    } else if (!taxonomies.some((t) => t.ExternalId === entry.ExternalId)) {
      taxonomies.push({ ExternalId: entry.ExternalId, Title: taxonomy.Title });
    }
  });

  // Both names of the repository list are accepted and merged without duplicates.
  const repositories: IdTitle[] = [];
  const named: [string, IdTitle[] | null | undefined][] = [
    ['LoRepositoryExternalIds', request.LoRepositoryExternalIds],
    ['ObjectiveRepositories', request.ObjectiveRepositories],
  ];
  for (const [listName, list] of named) {
    (list ?? []).forEach((entry, index) => {
      if (repositories.some((r) => r.ExternalId === entry.ExternalId)) return;
      const fail = (code: ProblemCode, message: string) =>
        problems.push(problem(`${listName}[${index}].ExternalId`, code, message));
      const repository = view.get<WorldLoRepository>('loRepositories', entry.ExternalId);
      if (repository === undefined) {
        fail(ErrorCode.RepositoryNotFound, `Learning objective repository not found: ${entry.ExternalId}`);
      } else if (!repository.IsRepository) {
        fail(ErrorCode.RepositoryNotARepository, `Learning objective ${entry.ExternalId} is not a repository`);
      } else if (!repository.Published) {
        fail(ErrorCode.RepositoryNotPublished, `Learning objective repository ${entry.ExternalId} is not published`);
      } else if (
        owner !== undefined &&
        !repository.AccessUserNames.some((name) => name.toLowerCase() === owner.UserName.toLowerCase())
      ) {
        fail(ErrorCode.RepositoryNoAccess, `Owner ${owner.UserName} has no access to repository ${entry.ExternalId}`);
      } else {
        repositories.push({ ExternalId: entry.ExternalId, Title: repository.Title });
      }
    });
  }

  if (problems.length > 0 || owner === undefined) return refuse(problems);
  const collection: WorldCollection = withoutUndefined({
    ExternalId: externalId,
    Title: request.Title,
    Owner: owner.UserName,
    Taxonomies: taxonomies,
    ObjectiveRepositories: repositories,
  });
  return accept(
    view,
    { ExternalId: externalId, Errors: [] },
    { collection: 'collections', key: externalId, value: collection },
  );
}
