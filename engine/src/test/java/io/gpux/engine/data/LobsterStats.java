package io.gpux.engine.data;

import java.util.ArrayList;
import java.util.List;

/** What a {@link LobsterReplay} counted. */
final class LobsterStats
{
    long messages;
    final long[] byType = new long[8];
    long addsAccepted;
    long addsRejected;
    long executions;
    long knownExecutions;
    long hits;
    long unknownExecutions;
    long unknownCancels;
    long unabsorbedGpus;
    long closedRefs;
    long droppedAtResync;
    long staleTaken;
    long rows;
    long levelsKnown;
    long levelsRevealed;
    long resyncs;
    long mismatches;
    long rowsFullyKnown;
    long mirrorDivergence;
    long gpuxLines;
    final List<String> misses = new ArrayList<>();
    final List<String> mismatchSamples = new ArrayList<>();

    double hitRate()
    {
        return knownExecutions == 0 ? 0 : (double)hits / knownExecutions;
    }

    String summary(final String name)
    {
        return String.format(
            "%s: %d messages (adds %d, partial cancels %d, deletes %d, visible executions %d, hidden %d, halts %d)%n" +
            "  executions: %d/%d known type-4 messages hit the Nasdaq order id (%.2f%%); %d skipped as unknown ids%n" +
            "  adds accepted %d, rejected %d; cancels/deletes of unknown ids %d; GPUs of unknown ids found nowhere %d;%n" +
            "  messages naming an order gpux had already closed %d; known orders dropped at a resync %d, taken for unknown ids %d%n" +
            "  book: %d rows; %d fully known levels equal, %d mismatches; %d rows fully known on both sides;%n" +
            "        %d levels newly revealed (%d resynced); replay/gpux divergences %d; %d gpux command lines",
            name, messages, byType[1], byType[2], byType[3], byType[4], byType[5], byType[7],
            hits, knownExecutions, 100.0 * hitRate(), unknownExecutions,
            addsAccepted, addsRejected, unknownCancels, unabsorbedGpus, closedRefs, droppedAtResync, staleTaken,
            rows, levelsKnown - mismatches, mismatches, rowsFullyKnown, levelsRevealed, resyncs, mirrorDivergence, gpuxLines) +
            "\n  first misses:\n    " + String.join("\n    ", misses) +
            "\n  first mismatches:\n    " + String.join("\n    ", mismatchSamples);
    }
}
