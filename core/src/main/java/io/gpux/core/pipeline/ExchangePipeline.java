package io.gpux.core.pipeline;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.counters.ExchangeCounters;
import io.gpux.core.journal.Journal;
import io.gpux.core.journal.Pretoucher;
import io.gpux.core.journal.SnapshotStore;
import io.gpux.core.journal.JournalSpace;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The exchange core: the deterministic engine behind LMAX Disruptor rings, with a Chronicle Queue
 * command journal, an event journal, snapshots and recovery. This class only builds the stages and wires
 * them; each stage is a class of its own, with its state: {@link PipelineContext} holds the settings,
 * {@link RecoveredJournals} opens the journals and recovers before any stage starts.
 *
 * <pre>
 *  producers --tryPublish--> [input ring, multi-producer] <--TICK-- Ticker
 *                               |
 *            CoreHandler: sequencer (stamp time + sequence)
 *                         -> command journal (one document per batch; msync in SYNC)
 *                         -> engine (apply the batch; queries run between commands)
 *                         -> CoreOutput: event journal (one document per batch) -> publishers
 *                            or [output ring] -> OutputHandler: event journal -> publishers
 *            command journal --> SnapshotReplica: a second engine applies the journaled commands and
 *                                serializes, writes and forces a snapshot when one is due
 * </pre>
 *
 * <p><b>Threads.</b> Every thread of the exchange, in one place (the gateway's {@code Exchange} adds the network side):
 * <ul>
 *   <li><b>core</b> ({@code gpux-core}, busy): the {@link CoreHandler}, a Disruptor consumer of the input
 *   ring; or, {@linkplain PipelineContext#polled polled}, no thread of its own: the {@link PolledDriver} runs the
 *   same handler on the owner's thread, the gateway's event loop in its shared layout. Sequencing,
 *   journaling, matching and the event journal run one after the other for every command, so no event
 *   leaves before its command is journaled. On a 2-core machine this is the one busy thread, and the
 *   other core is left to the network and the OS.</li>
 *   <li><b>output</b> ({@code gpux-output}, only without {@linkplain PipelineContext#inlineOutput inline output}):
 *   the {@link OutputHandler} writes the event journal and calls the publishers behind an output ring.</li>
 *   <li><b>snapshot</b> ({@code gpux-snapshot}): the {@link SnapshotReplica}, a second engine that follows the
 *   command journal as recovery replays it and, when a snapshot is due or asked for, serializes its own state
 *   at a batch boundary and writes, forces and renames it; the core does no snapshot work.</li>
 *   <li><b>ticker</b> ({@code gpux-ticker}, mostly asleep): the {@link Ticker} agent injects a TICK every
 *   {@code tickIntervalMs} of the injected {@linkplain PipelineContext#nanoClock clock}, so that timers fire when the
 *   market is quiet, and samples the core's counters once a second.</li>
 *   <li><b>journal space</b> ({@code gpux-pretouch}, mostly asleep): the {@link JournalSpace} guard (journal
 *   space reserved ahead of the writers, the free-space floor) and the {@link Pretoucher} (the journals'
 *   page faults taken before the core gets to them), as one composite agent.</li>
 *   <li>in the gateway: the Netty <b>event loop</b>, which decodes and publishes commands (and, in the
 *   shared layout, also polls this pipeline and runs the egress); the <b>egress</b> thread in the dedicated
 *   layout, which tails the event journal and answers the sessions; the <b>portfolio encoder</b>
 *   ({@code gpux-portfolio-encoder}, parked unless a portfolio answer waits), which builds the portfolio answers
 *   the core copied, off the egress's thread; the <b>resend reader</b> ({@code gpux-resend-reader}, parked unless a
 *   resend is in progress), which reads the resends' events from the event journal a round at a time, off the
 *   egress's thread; and the acceptor.</li>
 * </ul>
 * Producers on any thread publish without blocking ({@link #tryPublish}); every other crossing between
 * threads is a ring, a queue or the event journal (which the egress tails), and only the core writes the
 * engine's state.
 *
 * <p>A full disk: the core writes a batch only into journal space reserved for it and refuses (neither
 * journals nor applies) a batch that does not fit; producers are refused at the door while the disk is
 * under its floor ({@link #refusal()}). A failure of any stage stops the core ({@link StopOnError}): from
 * then on it answers every command still in the ring, and those of the batch it failed in, as refused.
 */
public final class ExchangePipeline implements AutoCloseable
{
    /** The journal space agent's longest sleep when it has nothing to do, in ms. */
    private static final long SPACE_AGENT_MAX_PARK_MS = 4;
    private static final EventTranslatorOneArg<CommandSlot, Command> COPY = (slot, seq, src) -> slot.command().copyFrom(src);
    private static final EventTranslatorOneArg<CommandSlot, Object> RESTART =
        (slot, seq, unused) -> slot.command().reset(CommandType.RESTART, 0);
    private static final EventTranslatorOneArg<CommandSlot, Query> QUERY = (slot, seq, query) ->
    {
        slot.command().reset(CommandType.TICK, 0);
        slot.query = query;
    };

    private final PipelineContext ctx;
    private final Journal commandJournal;
    private final Journal eventJournal;
    private final Recovery.Result recovered;
    private final JournalSpace space;
    private final PipelineState state;
    /** The core thread's Disruptor; null when polled. */
    private final Disruptor<CommandSlot> input;
    /** The driver of the core when polled; else null. */
    private final PolledDriver polledDriver;
    private final Runnable onPublish;
    private final RingBuffer<CommandSlot> inputRing;
    private final CoreHandler core;
    /** The output thread's Disruptor; null with inline output. */
    private final Disruptor<EventSlot> output;
    private final OutputHandler outputHandler;
    /** The command sequence of the RESTART that {@link #goLive()} published, or 0 if none was. */
    private volatile long restartSequence;
    private boolean live;
    private final SnapshotReplica replica;
    /** The ticker's runner; null when no TICK is injected. */
    private final AgentRunner ticker;
    private final AgentRunner pretoucher;
    private boolean closed;

    private ExchangePipeline(final PipelineContext ctx) throws IOException
    {
        this.ctx = ctx.conclude();
        final RecoveredJournals journals = RecoveredJournals.open(ctx);
        commandJournal = journals.commands();
        eventJournal = journals.events();
        recovered = journals.result();

        space = new JournalSpace(ctx.dataDir(), ctx.minFreeBytes(), ctx.nanoClock(), ctx.log(), commandJournal, eventJournal);
        space.doWork();
        state = new PipelineState(space);

        outputHandler = new OutputHandler(eventJournal, ctx.publishers, ctx.outputRingSize());
        output = ctx.inlineOutput ? null : startOutput();
        final CoreCounters counters = new CoreCounters(ctx.counters, ctx.ringSize());
        final CoreOutput coreOutput = new CoreOutput(eventJournal, ctx.publishers, output == null ? null : output.getRingBuffer());
        onPublish = ctx.onPublish;
        if (ctx.polled)
        {
            // nobody waits on the ring: the poller is called; publishing must signal nothing
            input = null;
            inputRing = RingBuffer.createMultiProducer(CommandSlot::new, ctx.ringSize(), new BusySpinWaitStrategy());
            core = new CoreHandler(ctx, recovered, commandJournal, eventJournal, journals.quarantine(), space, state, counters,
                coreOutput, inputRing);
            polledDriver = new PolledDriver(inputRing, core, new StopOnError<>("core", state, ctx.log(), core));
        }
        else
        {
            polledDriver = null;
            input = new Disruptor<>(CommandSlot::new, ctx.ringSize(), daemonThreads("gpux-core"), ProducerType.MULTI,
                ctx.busySpin ? new BusySpinWaitStrategy() :
                ctx.yielding ? new YieldingWaitStrategy() : new BlockingWaitStrategy());
            core = new CoreHandler(ctx, recovered, commandJournal, eventJournal, journals.quarantine(), space, state, counters,
                coreOutput, input.getRingBuffer());
            input.setDefaultExceptionHandler(new StopOnError<>("core", state, ctx.log(), core));
            input.handleEventsWith(core);
            inputRing = input.start();
        }
        pretoucher = startJournalSpaceAgent();

        replica = new SnapshotReplica(commandJournal, journals.snapshots(), recovered, journals.quarantine(), ctx.snapshotEvery(),
            counters, ctx.nanoClock(), ctx.log(), hash -> core.lastHash = hash);
        replica.start();

        ticker = ctx.tickIntervalMs() == 0 ? null : new AgentRunner(new SleepingMillisIdleStrategy(ctx.tickIntervalMs()),
            ex -> ctx.log().accept("ticker: " + ex), null,
            new Ticker(ctx.nanoClock(), ctx.tickIntervalMs(), ctx.counterSampleMs(), inputRing, counters, replica::sampleLag, this::tryPublishQuery,
                state::failed));
        if (!ctx.announceRestart)
        {
            goLive();
        }
    }

    /** The output thread's Disruptor, started: it writes the event journal and calls the publishers. */
    private Disruptor<EventSlot> startOutput()
    {
        final Disruptor<EventSlot> disruptor = new Disruptor<>(EventSlot::new, ctx.outputRingSize(), daemonThreads("gpux-output"),
            ProducerType.SINGLE, ctx.outputYielding ? new YieldingWaitStrategy() : new BlockingWaitStrategy());
        disruptor.setDefaultExceptionHandler(new StopOnError<>("output", state, ctx.log(), null));
        disruptor.handleEventsWith(outputHandler);
        disruptor.start();
        return disruptor;
    }

    /**
     * The journal space guard, and the pretoucher with it: one mostly sleeping thread, started. It sleeps 1 ms
     * between turns while there is work (the writers move), backing off to {@link #SPACE_AGENT_MAX_PARK_MS} ms when
     * there is none: an idle exchange wakes it 250 times a second, not 1,000, and a writer at 200 MB/s uses under
     * 1 MiB of the 3 MiB or more reserved ahead of it while it sleeps.
     */
    private AgentRunner startJournalSpaceAgent()
    {
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(1, 1, TimeUnit.MILLISECONDS.toNanos(1),
            TimeUnit.MILLISECONDS.toNanos(SPACE_AGENT_MAX_PARK_MS)),
            ex -> ctx.log().accept("journal space/pretouch: " + ex), null,
            ctx.pretouch ? new CompositeAgent(space, new Pretoucher(ctx.log(), commandJournal, eventJournal)) : space);
        AgentRunner.startOnThread(runner, daemonThreads("gpux-pretouch"));
        return runner;
    }

    /** Recovers from the data directory and goes live. */
    public static ExchangePipeline start(final PipelineContext ctx) throws IOException
    {
        return new ExchangePipeline(ctx);
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(final String name)
    {
        return r ->
        {
            final Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Publishes a copy of a command without blocking.
     *
     * @return false when the input ring is full: answer the producer BUSY.
     */
    public boolean tryPublish(final Command command)
    {
        return accepting() && published(inputRing.tryPublishEvent(COPY, command));
    }

    /** Publishes a command filled in place by a translator, without blocking; false when full. */
    public <A> boolean tryPublish(final EventTranslatorOneArg<CommandSlot, A> translator, final A arg)
    {
        return accepting() && published(inputRing.tryPublishEvent(translator, arg));
    }

    /**
     * Publishes a query without blocking: it runs on the core thread after every command published
     * before it, and before any published after it.
     *
     * @return false when the input ring is full: answer the producer BUSY.
     */
    public boolean tryPublishQuery(final Query query)
    {
        return !state.failed() && published(inputRing.tryPublishEvent(QUERY, query));
    }

    private boolean accepting()
    {
        return state.accepting();
    }

    /**
     * Why commands are refused now, for the producer's UNAVAILABLE answer: the core has stopped, or the
     * journal disk is short of space (until it has room again); null when commands are accepted (a
     * false {@link #tryPublish} then means the ring is full: BUSY). Any thread.
     */
    public String refusal()
    {
        return state.refusal();
    }

    private boolean published(final boolean published)
    {
        if (published && polledDriver != null)
        {
            onPublish.run();
        }
        return published;
    }

    /**
     * A polled pipeline's core: applies up to {@code limit} published commands (as one batch, or
     * several), on the caller's thread, which must be one thread at a time, the same one that called
     * before or one that has seen all its effects (e.g. after the polling thread stopped).
     *
     * @return how many commands and queries were taken from the ring (0: none was waiting, or the
     *     pipeline has failed).
     */
    public int poll(final int limit)
    {
        if (polledDriver == null)
        {
            throw new IllegalStateException("this pipeline has a core thread of its own");
        }
        return polledDriver.poll(limit);
    }

    /**
     * A reader of the event journal, for one thread of the caller's (e.g. a gateway tailing the
     * events as they are written): events are in it before any publisher sees them.
     */
    public Journal.Reader newEventReader()
    {
        return eventJournal.reader();
    }

    /**
     * Asks for a snapshot of the commands published so far: a TICK is published after them, and the snapshot
     * replica takes the snapshot once it has applied the TICK (the core does nothing for it but journal and apply
     * the TICK); it is on disk at the latest by the end of {@link #close()}.
     */
    public void requestSnapshot()
    {
        replica.request(core.counters.commandSequence.get() + 1);
        inputRing.tryPublishEvent(Ticker.TICK, null);
    }

    public Recovery.Result recovered()
    {
        return recovered;
    }

    /**
     * With {@link PipelineContext#announceRestart}: journals the RESTART if the recovered journal held commands, then
     * starts the ticker. Call it once, before anything else is published, when clients are about to be let in.
     * Without it, the constructor has called it.
     */
    public synchronized void goLive()
    {
        if (live)
        {
            throw new IllegalStateException("already live");
        }
        live = true;
        if (ctx.announceRestart && recovered.commandSequence() > 0)
        {
            // nobody has published since recovery: this is the first command after it
            while (!inputRing.tryPublishEvent(RESTART, null))
            {
                Thread.onSpinWait();
            }
            published(true);
            restartSequence = recovered.commandSequence() + 1;
        }
        if (ticker != null)
        {
            AgentRunner.startOnThread(ticker, daemonThreads("gpux-ticker"));
        }
    }

    /**
     * The command sequence of the RESTART that {@link #goLive()} published, or 0 if it published none (a fresh
     * journal, or not asked to): applied once {@link #appliedCommands()} reaches it.
     */
    public long restartSequence()
    {
        return restartSequence;
    }

    /** Commands applied so far (the last command sequence). Read from any thread. */
    public long appliedCommands()
    {
        return core.appliedSequence;
    }

    /**
     * The last command the snapshot replica has applied (it follows the core off the core thread, and may lag).
     * Any thread.
     */
    public long snapshotReplicaSequence()
    {
        return replica.appliedSequence();
    }

    /** The state hash as of the last snapshot, recovery or close; exact only when no producer is publishing. */
    public long lastStateHash()
    {
        return core.lastHash;
    }

    /** Whether a stage failed; the pipeline then accepts nothing more. */
    public boolean failed()
    {
        return state.failed();
    }

    /** Why the pipeline stopped, in one line, or null while it runs. */
    public String failureReason()
    {
        return state.failureReason();
    }

    /**
     * Stops the ticker, drains both rings, writes a final hash and closes the journals. Idempotent.
     *
     * <p>The journals' appenders change hands here, and only once their last writer can no longer use
     * them: the ticker is joined first, so nothing new arrives; a core or output thread applies what is
     * left, is halted and has run its shutdown before this thread takes its journal over; a polled
     * pipeline's owner must have stopped polling (and this thread seen its effects) before it calls
     * close, which then takes the journals over before it applies what is left in the ring.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (ticker != null)
        {
            // it sleeps between ticks: woken at once, it leaves its loop with nothing left to do
            ticker.close(1, Thread::interrupt);
        }
        if (polledDriver != null)
        {
            commandJournal.takeOverWriting();
            eventJournal.takeOverWriting();
        }
        if (!state.failed() && !drain(30_000))
        {
            ctx.log().accept("pipeline did not drain in 30 s: halting");
        }
        if (input != null)
        {
            input.halt();
            awaitStopped(core.stopped, "core");
        }
        if (output != null)
        {
            output.halt();
            awaitStopped(outputHandler.stopped, "output");
        }
        // the replica applies what the core journaled and takes a snapshot asked for; after a failure it just stops
        replica.close(state.failed() ? -1 : core.counters.commandSequence.get());
        if (!state.failed())
        {
            core.lastHash = core.engine.stateHash();
        }
        if (pretoucher != null)
        {
            pretoucher.close();
        }
        commandJournal.takeOverWriting();
        eventJournal.takeOverWriting();
        if (state.failed())
        {
            // what the failed batch left unwritten stays so: the journals end with what was written
            commandJournal.discardBatch();
            eventJournal.discardBatch();
        }
        commandJournal.close();
        eventJournal.close();
        if (state.failed())
        {
            throw new IllegalStateException("the pipeline stopped on an error", state.failure());
        }
    }

    /** Waits for a halted stage's thread to leave its loop: its writes to the journal happen-before the return. */
    private void awaitStopped(final CountDownLatch stopped, final String stage)
    {
        try
        {
            if (!stopped.await(30, TimeUnit.SECONDS))
            {
                ctx.log().accept("the " + stage + " thread did not stop in 30 s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the core has applied every published command and the output has written every event. */
    private boolean drain(final long timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline && !state.failed())
        {
            final long published = inputRing.getCursor();
            if (polledDriver != null)
            {
                // the owner has stopped polling and this thread has taken the journals over: it applies what is left
                poll(Integer.MAX_VALUE);
            }
            final long applied = polledDriver != null ? polledDriver.sequence() : input.getSequenceValueFor(core);
            if (applied >= published && (output == null ||
                output.getRingBuffer().getCursor() <= output.getSequenceValueFor(outputHandler)))
            {
                return true;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return false;
    }

}
