import {
  collectionExternalIdTakenProblem,
  collectionOwnerNoPermissionProblem,
  collectionOwnerNotFoundProblem,
  collectionOwnerNotSetProblem,
  repositoryNoAccessProblem,
  repositoryNotARepositoryProblem,
  repositoryNotFoundProblem,
  repositoryNotPublishedProblem,
  taxonomyNotFoundProblem,
} from '../domain/index.js';
import type { Problem } from '../domain/problem.js';
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
    problems.push(collectionExternalIdTakenProblem(externalId));
  }

  const settings = view.get<WorldSettings>('settings', SETTINGS_KEY);
  const ownerName = request.Owner ?? settings?.ExternalApiOwner ?? undefined;
  let owner: WorldUser | undefined;
  if (ownerName === undefined || ownerName === '') {
    problems.push(collectionOwnerNotSetProblem());
  } else {
    const ownerKey = view.userKeyByUserName(ownerName);
    owner = ownerKey === undefined ? undefined : view.get<WorldUser>('users', ownerKey);
    if (owner === undefined) {
      problems.push(collectionOwnerNotFoundProblem(ownerName));
    } else if (owner.CanViewCollections !== true) {
      problems.push(collectionOwnerNoPermissionProblem(owner.UserName));
    }
  }

  const taxonomies: IdTitle[] = [];
  (request.Taxonomies ?? []).forEach((entry, index) => {
    const taxonomy = view.get<WorldTaxonomy>('taxonomies', entry.ExternalId);
    if (taxonomy === undefined) {
      problems.push(taxonomyNotFoundProblem(`Taxonomies[${index}].ExternalId`, entry.ExternalId));
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
      const field = `${listName}[${index}].ExternalId`;
      const repository = view.get<WorldLoRepository>('loRepositories', entry.ExternalId);
      if (repository === undefined) {
        problems.push(repositoryNotFoundProblem(field, entry.ExternalId));
      } else if (!repository.IsRepository) {
        problems.push(repositoryNotARepositoryProblem(field, entry.ExternalId));
      } else if (!repository.Published) {
        problems.push(repositoryNotPublishedProblem(field, entry.ExternalId));
      } else if (
        owner !== undefined &&
        !repository.AccessUserNames.some((name) => name.toLowerCase() === owner.UserName.toLowerCase())
      ) {
        problems.push(repositoryNoAccessProblem(field, entry.ExternalId, owner.UserName));
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
  return accept(view, { ExternalId: externalId, Errors: [] }, { collection: 'collections', key: externalId }, [
    { collection: 'collections', key: externalId, value: collection },
  ]);
}
