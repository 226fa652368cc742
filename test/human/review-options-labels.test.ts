import { describe, it, expect } from 'vitest';
import type { ReviewSession } from '../../src/domain/types.js';
import { renderReviewSession } from '../../src/terminal/review-session-view.js';

/*
 * The review options' labels are the answer fields' own names in words (domain/answer-fields.ts),
 * without "show" and with "score report with" read as "score by"; a key the API text does not
 * name keeps every word, after the named ones.
 */
const session = {
  ExternalId: 'RS-1',
  Title: 'Labels',
  ReviewPeriodMode: 'ALWAYS',
  NumOfCandidates: 0,
  ResultsOptions: {
    ShowSummary: true,
    ShowDetailed: false,
    ScoreReportWithSubjects: true,
    ScoreReportWithObjectives: false,
    ScoreReportWithTopics: true,
    ShowMarkingScheme: false,
    ShowAnnotations: true,
    Feedback: 'NO_FEEDBACK',
    ShowSomethingNew: true,
  },
  OverviewOptions: { ShowResultOutcome: false, ShowGrade: true, ShowPercentageToPass: false },
  Results: [],
} as unknown as ReviewSession;

describe('review options in the session view', () => {
  const text = renderReviewSession(session).replace(/[│\s]+/g, ' ');

  it('names each option the API text lists, in its order, and an unknown one in full words last', () => {
    const results = [
      'summary: yes',
      'detailed: no',
      'score by subjects: yes',
      'score by objectives: no',
      'score by topics: yes',
      'marking scheme: no',
      'annotations: yes',
      'feedback: none',
      'show something new: yes',
    ];
    const at = results.map((part) => text.indexOf(part));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const overview = ['grade: yes', 'percentage to pass: no', 'result outcome: no'].map((part) => text.indexOf(part));
    expect(overview.every((index) => index >= 0)).toBe(true);
    expect([...overview].sort((a, b) => a - b)).toEqual(overview);
  });

  it('says the modes the API text names in words, and a mode it does not name as sent', () => {
    const modes = (overrides: Partial<ReviewSession>) =>
      renderReviewSession({ ...session, ...overrides }).replace(/[│\s]+/g, ' ');
    expect(text).toContain('Review mode always');
    expect(
      modes({ ReviewPeriodMode: 'TIME_SPAN', NavigationType: 'CANDIDATE_DELIVERY' } as Partial<ReviewSession>),
    ).toMatch(/Review mode time span .*navigation: candidate delivery/);
    expect(
      modes({
        NavigationType: 'ORIGINAL_FORM',
        ResultsOptions: { Feedback: 'ON_ALTERNATIVES' },
      } as Partial<ReviewSession>),
    ).toMatch(/feedback: on alternatives.*navigation: original form/);
    expect(modes({ ResultsOptions: { Feedback: 'ON_QUESTIONS' } } as Partial<ReviewSession>)).toContain(
      'feedback: on questions',
    );
    expect(modes({ NavigationType: 'FREE_ROAMING' } as unknown as Partial<ReviewSession>)).toContain(
      'navigation: FREE_ROAMING',
    );
  });
});
