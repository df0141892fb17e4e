package io.gpux.core.pipeline;

import io.gpux.core.journal.Journal;
import io.gpux.core.journal.SnapshotStore;

import java.io.IOException;

/**
 * The recovery step of an {@link ExchangePipeline}'s start: opens the data directory's command and event
 * journals, its snapshot store and its quarantine, and recovers the engine's state from them (the journals
 * are closed again if it fails). Runs on the thread that starts the pipeline, before any stage starts.
 */
record RecoveredJournals(Journal commands, Journal events, SnapshotStore snapshots, Quarantine quarantine,
    Recovery.Result result)
{
    static RecoveredJournals open(final PipelineContext ctx) throws IOException
    {
        final Journal commandJournal = Journal.open(ctx.dataDir().resolve("commands"));
        final Journal eventJournal = Journal.open(ctx.dataDir().resolve("events"));
        final SnapshotStore snapshotStore = ctx.snapshotStore.apply(ctx.dataDir().resolve("snapshots"), ctx.snapshotsKept());
        final Quarantine quarantine;
        final Recovery.Result recovered;
        try
        {
            quarantine = Quarantine.load(ctx.dataDir());
            recovered = recoverSkippingPoison(commandJournal, eventJournal, snapshotStore, quarantine, ctx);
        }
        catch (final RuntimeException | IOException ex)
        {
            commandJournal.close();
            eventJournal.close();
            throw ex;
        }
        if (quarantine.size() > 0)
        {
            ctx.log().accept(quarantine.size() + " quarantined command(s) in " + ctx.dataDir().resolve(Quarantine.FILE) +
                ", replayed as TICKs");
        }
        ctx.log().accept("recovered: command " + recovered.commandSequence() + " (" + recovered.replayedCommands() +
            " replayed after snapshot " + recovered.snapshotSequence() + "), " + recovered.checkedEvents() +
            " events checked, " + recovered.appendedEvents() + " appended");
        return new RecoveredJournals(commandJournal, eventJournal, snapshotStore, quarantine, recovered);
    }

    /**
     * Recovers; a command the engine fails on during the replay (one the live core did not get to
     * quarantine) is quarantined by recovery, which then starts over without it.
     */
    private static Recovery.Result recoverSkippingPoison(final Journal commandJournal, final Journal eventJournal,
        final SnapshotStore snapshots, final Quarantine quarantine, final PipelineContext ctx) throws IOException
    {
        while (true)
        {
            try
            {
                // with the twin, the snapshot restored twice in parallel: the second engine is the replica's start
                return Recovery.recover(commandJournal, eventJournal, snapshots, null, false, quarantine,
                    ctx.snapshotTwin(), engine -> { }, ctx.log());
            }
            catch (final Quarantine.PoisonCommandException ex)
            {
                ctx.log().accept("recovering again without command " + ex.commandSequence());
            }
        }
    }
}
