/**
 * Read-only lookups that only the local target can answer: the integration API has no endpoint
 * to list roles or a schedule's invigilators. Prompts use them to offer choices instead of free
 * text. It is an optional capability beside IntegrationApi, never part of it, so commands keep
 * working the same against a remote target (which simply has no directory).
 */
export interface LocalDirectory {
  /** Titles of the world's roles, those that take exams (Participate) first, then the world's order. */
  roleTitles(): string[];
  /** External ids of the schedule's invigilators; null when there is no such schedule. */
  invigilatorsOf(scheduleExtId: string): string[] | null;
  /** The editable fields of an existing user (never a password or its hash); null when unknown. */
  userOf(externalId: string): KnownUser | null;
}

export interface KnownUser {
  ExternalId: string;
  FirstName: string;
  LastName: string;
  Email?: string;
  UserName: string;
  Role: string;
}

/** A directory the caller must close (it may hold a store open). */
export interface OpenDirectory extends LocalDirectory {
  close(): Promise<void>;
}
