// The bufferbloat grade, DSLReports' bands (also LibreQoS's test's): the mean
// of the latency added while downloading and while uploading, in ms.
// https://www.dslreports.com/faq/17930: "( average(uplift during upload) +
// average(uplift during download) ) / 2", A+ below 5 ms, A below 30, B below
// 60, C below 200, D below 400, F from 400 (there is no E).

export const GRADES = ["A+", "A", "B", "C", "D", "F"] as const;
export type Grade = (typeof GRADES)[number];

/** Upper bounds (ms, exclusive) of every grade but F. */
export const GRADE_BANDS: readonly { grade: Grade; belowMs: number }[] = [
  { grade: "A+", belowMs: 5 },
  { grade: "A", belowMs: 30 },
  { grade: "B", belowMs: 60 },
  { grade: "C", belowMs: 200 },
  { grade: "D", belowMs: 400 },
];

/** The grade of an added latency (ms); a negative one (loaded faster than idle, noise) is A+. */
export function gradeOf(addedMs: number): Grade {
  for (const b of GRADE_BANDS) if (addedMs < b.belowMs) return b.grade;
  return "F";
}

/**
 * The grade of a run: the mean of the download and upload phases' added
 * latency, or the one of them that was measured; null when neither was.
 */
export function runGrade(downloadAddedMs: number | null, uploadAddedMs: number | null): Grade | null {
  const added = [downloadAddedMs, uploadAddedMs].filter((x): x is number => x !== null);
  if (added.length === 0) return null;
  return gradeOf(added.reduce((a, b) => a + b, 0) / added.length);
}
