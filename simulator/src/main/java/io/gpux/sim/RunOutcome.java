package io.gpux.sim;

import io.gpux.sim.report.Report;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a run produced: its report (and the files written), the checks, the summary text.
 *
 * @param report  the report (its analysis holds every figure).
 * @param html    report.html's path.
 * @param checks  the invariants checked, name to value (booleans must be true).
 * @param ok      whether every check held.
 * @param summary the summary table as printed.
 */
public record RunOutcome(Report report, Path html, Map<String, Object> checks, boolean ok, String summary)
{
}
