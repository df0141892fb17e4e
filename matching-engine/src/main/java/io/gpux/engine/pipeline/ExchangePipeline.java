package io.gpux.engine.pipeline;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.counters.ExchangeCounters;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventSink;
import io.gpux.engine.journal.CommandCodec;
import io.gpux.engine.journal.EventCodec;
import io.gpux.engine.journal.Journal;
import io.gpux.engine.journal.Pretoucher;
import io.gpux.engine.journal.SnapshotStore;
import io.gpux.engine.journal.JournalSpace;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The exchange core: the deterministic engine behind LMAX Disruptor rings, with a Chronicle Queue
 * command journal, an event journal, snapshots and recovery.
 *
 * <pre>
 *  producers --tryPublish--> [input ring, multi-producer]
 *                               |
 *                      core thread: sequencer (stamp time + sequence)
 *                               -> command journal (one document per batch; msync in SYNC)
 *                               -> engine (apply the batch)
 *                               -> event journal (one document per batch) -> publishers
 * </pre>
 *
 * One busy thread, for a 2-core machine: the core thread does the sequencing, journaling, matching
 * and event journaling, each stage strictly after the previous for every command, so no event can
 * leave before its command is journaled, and the other core is left to the network and the OS. As an
 * option ({@link Context#inlineOutput}), the event journal and the publishers run on an output thread
 * behind an output ring instead. Two mostly sleeping threads help: a ticker injects a TICK every
 * {@code tickIntervalMs} so that timers fire when the market is quiet, and one that runs the
 * {@link JournalSpace} guard (journal space reserved ahead of the writers, the free-space floor) and a
 * {@link Pretoucher} (the journals' page faults taken before the core thread gets to them).
 *
 * <p>A full disk: the core writes a batch only into journal space reserved for it and refuses (neither
 * journals nor applies) a batch that does not fit; producers are refused at the door while the disk is
 * under its floor ({@link #refusal()}). A failure of any stage stops the core: from then on it answers
 * every command still in the ring, and those of the batch it failed in, as refused.
 */
public final class ExchangePipeline implements AutoCloseable
{
    /** Settings, with defaults. */
    public static final class Context
    {
        private Path dataDir;
        private Durability durability = Durability.ASYNC;
        private int ringSize = 1 << 14;
        private int outputRingSize = 1 << 16;
        private long tickIntervalMs = 100;
        private long snapshotEvery = 1_000_000;
        private int snapshotsKept = 3;
        private EpochClock clock = SystemEpochClock.INSTANCE;
        private final List<EventPublisher> publishers = new ArrayList<>();
        private Consumer<String> log = System.err::println;
        private boolean yielding = true;
        private boolean outputYielding = true;
        private boolean inlineOutput = true;
        private boolean busySpin;
        private boolean pretouch = true;
        private boolean polled;
        private boolean announceRestart;
        private Runnable onPublish = () -> { };
        private long minFreeBytes = DEFAULT_MIN_FREE_BYTES;
        private org.agrona.concurrent.NanoClock nanoClock = org.agrona.concurrent.SystemNanoClock.INSTANCE;
        private ExchangeCounters counters;
        private java.util.function.BiFunction<Path, Integer, SnapshotStore> snapshotStore = SnapshotStore::new;

        public Context dataDir(final Path v)
        {
            dataDir = v;
            return this;
        }

        public Context durability(final Durability v)
        {
            durability = v;
            return this;
        }

        public Context ringSize(final int v)
        {
            ringSize = v;
            return this;
        }

        public Context outputRingSize(final int v)
        {
            outputRingSize = v;
            return this;
        }

        /** 0 disables the TICK injection. */
        public Context tickIntervalMs(final long v)
        {
            tickIntervalMs = v;
            return this;
        }

        /** 0 disables periodic snapshots. */
        public Context snapshotEvery(final long v)
        {
            snapshotEvery = v;
            return this;
        }

        public Context snapshotsKept(final int v)
        {
            snapshotsKept = v;
            return this;
        }

        public Context clock(final EpochClock v)
        {
            clock = v;
            return this;
        }

        public Context publisher(final EventPublisher v)
        {
            publishers.add(v);
            return this;
        }

        public Context log(final Consumer<String> v)
        {
            log = v;
            return this;
        }

        /** Yielding (lowest latency, burns the cores) or blocking wait strategies, for both threads. */
        public Context yielding(final boolean v)
        {
            yielding = v;
            outputYielding = v;
            return this;
        }

        /**
         * Write the event journal and call the publishers on the core thread, after each batch, instead
         * of handing events to an output thread through the output ring. The default: on a 2-core
         * machine a third busy thread costs more than it gives.
         */
        public Context inlineOutput(final boolean v)
        {
            inlineOutput = v;
            return this;
        }

        /**
         * The core thread never yields its core while waiting (lowest latency; the core is the
         * exchange's alone, the other one carries the network and everything else).
         */
        public Context busySpin(final boolean v)
        {
            busySpin = v;
            return this;
        }

        /**
         * Touch the journals' pages ahead of the writer on a background thread (the default), so that the
         * core thread never waits for the kernel to allocate a page of the journal files.
         */
        public Context pretouch(final boolean v)
        {
            pretouch = v;
            return this;
        }

        /**
         * No core thread: the owner calls {@link #poll(int)} from a thread of its own (e.g. the gateway's
         * event loop, so that a command decoded there is applied and answered on the same thread, with no
         * hand-over between threads). Needs inline output. {@code onPublish} is called after every
         * successful publish, from the publishing thread, so that the owner can wake its polling thread.
         */
        public Context polled(final Runnable onPublish)
        {
            polled = true;
            this.onPublish = onPublish;
            return this;
        }

        /**
         * The free space the data directory's file system must keep: below it new commands are refused
         * (UNAVAILABLE, with the reason) until space comes back. Default {@value #DEFAULT_MIN_FREE_BYTES} bytes.
         */
        public Context minFreeBytes(final long v)
        {
            minFreeBytes = v;
            return this;
        }

        /** Where the core keeps its counters (default: in memory, read by nobody outside the process). */
        public Context counters(final ExchangeCounters v)
        {
            counters = v;
            return this;
        }

        /** The clock the journal space guard paces its free-space checks by, and the core times its batches by. */
        public Context nanoClock(final org.agrona.concurrent.NanoClock v)
        {
            nanoClock = v;
            return this;
        }

        /**
         * The owner goes live by calling {@link ExchangePipeline#goLive()}: only then is a RESTART journaled
         * (after recovering a journal that holds commands; docs/market-rules.md section 14) and does the ticker
         * start, so that the restart's time is as close as possible to the moment clients can connect again.
         * Off by default (the ticker starts at once and no RESTART is journaled); the exchange turns it on.
         */
        public Context announceRestart(final boolean v)
        {
            announceRestart = v;
            return this;
        }

        /** The snapshot folder's store, from its path and how many to keep (a test's may watch or hold its writes). */
        Context snapshotStore(final java.util.function.BiFunction<Path, Integer, SnapshotStore> v)
        {
            snapshotStore = v;
            return this;
        }

        /** The output thread's wait strategy alone: blocking leaves the core thread a whole core. */
        public Context outputYielding(final boolean v)
        {
            outputYielding = v;
            return this;
        }

        Context conclude()
        {
            if (dataDir == null)
            {
                throw new IllegalArgumentException("dataDir is required");
            }
            if (Integer.bitCount(ringSize) != 1 || Integer.bitCount(outputRingSize) != 1)
            {
                throw new IllegalArgumentException("ring sizes must be powers of two");
            }
            if (polled && !inlineOutput)
            {
                throw new IllegalArgumentException("a polled pipeline writes its output inline");
            }
            if (tickIntervalMs < 0 || snapshotEvery < 0 || snapshotsKept < 1 || minFreeBytes < 0)
            {
                throw new IllegalArgumentException("negative interval or no snapshot kept");
            }
            if (counters == null)
            {
                counters = ExchangeCounters.inMemory();
            }
            return this;
        }
    }

    /** The default free-space floor of the data directory's file system: 64 MiB. */
    public static final long DEFAULT_MIN_FREE_BYTES = 64L << 20;
    /** A command batch is written (and applied) once its journal document reaches this size. */
    private static final int BATCH_BYTES = 512 * 1024;
    /** The event journal room asked per command of a batch, before its events are known. */
    private static final long EVENT_BYTES_PER_COMMAND = 256;
    /**
     * At most this many commands in a batch, so that the event journal room a batch asks for stays well
     * inside what the guard reserves ahead of the writer.
     */
    private static final int MAX_BATCH_COMMANDS = 2048;
    /** How often the ticker samples the batch times and asks for the markets' figures. */
    private static final long COUNTER_SAMPLE_MS = 1_000;

    private static final EventTranslatorOneArg<CommandSlot, Command> COPY = (slot, seq, src) -> slot.command().copyFrom(src);
    private static final EventTranslatorOneArg<CommandSlot, Object> TICK =
        (slot, seq, unused) -> slot.command().reset(CommandType.TICK, 0);
    private static final EventTranslatorOneArg<CommandSlot, Object> RESTART =
        (slot, seq, unused) -> slot.command().reset(CommandType.RESTART, 0);
    private static final EventTranslatorOneArg<CommandSlot, Query> QUERY = (slot, seq, query) ->
    {
        slot.command().reset(CommandType.TICK, 0);
        slot.query = query;
    };

    private final Context ctx;
    private final Journal commandJournal;
    private final Journal eventJournal;
    private final SnapshotStore snapshots;
    private final Quarantine quarantine;
    /** The core thread's Disruptor; null when polled. */
    private final Disruptor<CommandSlot> input;
    /** The consumer of the input ring when polled; else null. */
    private final EventPoller<CommandSlot> poller;
    private final PollHandler pollHandler;
    private final Runnable onPublish;
    private boolean pollStarted;
    private final Disruptor<EventSlot> output;
    private final RingBuffer<CommandSlot> inputRing;
    private final CoreHandler core;
    private final Recovery.Result recovered;
    /** The command sequence of the RESTART that {@link #goLive()} published, or 0 if none was. */
    private volatile long restartSequence;
    private boolean live;
    private final SnapshotReplica replica;
    private final Thread ticker;
    private final AgentRunner pretoucher;
    private final JournalSpace space;
    private volatile boolean running = true;
    private volatile Throwable failure;
    private boolean closed;
    private final OutputHandler outputHandler;

    private ExchangePipeline(final Context ctx) throws IOException
    {
        this.ctx = ctx.conclude();
        commandJournal = Journal.open(ctx.dataDir.resolve("commands"));
        eventJournal = Journal.open(ctx.dataDir.resolve("events"));
        snapshots = ctx.snapshotStore.apply(ctx.dataDir.resolve("snapshots"), ctx.snapshotsKept);
        try
        {
            quarantine = Quarantine.load(ctx.dataDir);
            recovered = recoverSkippingPoison();
        }
        catch (final RuntimeException | IOException ex)
        {
            commandJournal.close();
            eventJournal.close();
            throw ex;
        }
        if (quarantine.size() > 0)
        {
            ctx.log.accept(quarantine.size() + " quarantined command(s) in " + ctx.dataDir.resolve(Quarantine.FILE) +
                ", replayed as TICKs");
        }
        ctx.log.accept("recovered: command " + recovered.commandSequence() + " (" + recovered.replayedCommands() +
            " replayed after snapshot " + recovered.snapshotSequence() + "), " + recovered.checkedEvents() +
            " events checked, " + recovered.appendedEvents() + " appended");

        outputHandler = new OutputHandler(eventJournal, ctx.publishers, ctx.outputRingSize);
        final RingBuffer<EventSlot> outputRing;
        if (ctx.inlineOutput)
        {
            output = null;
            outputRing = null;
        }
        else
        {
            output = new Disruptor<>(EventSlot::new, ctx.outputRingSize, daemonThreads("gpux-output"), ProducerType.SINGLE,
                ctx.outputYielding ? new YieldingWaitStrategy() : new BlockingWaitStrategy());
            output.setDefaultExceptionHandler(new StopOnError<>("output"));
            output.handleEventsWith(outputHandler);
            outputRing = output.start();
        }

        space = new JournalSpace(ctx.dataDir, ctx.minFreeBytes, ctx.nanoClock, ctx.log, commandJournal, eventJournal);
        space.doWork();
        core = new CoreHandler(recovered, outputRing);
        onPublish = ctx.onPublish;
        if (ctx.polled)
        {
            // nobody waits on the ring: the poller is called; publishing must signal nothing
            input = null;
            inputRing = RingBuffer.createMultiProducer(CommandSlot::new, ctx.ringSize, new BusySpinWaitStrategy());
            poller = inputRing.newPoller();
            inputRing.addGatingSequences(poller.getSequence());
            pollHandler = new PollHandler();
        }
        else
        {
            poller = null;
            pollHandler = null;
            input = new Disruptor<>(CommandSlot::new, ctx.ringSize, daemonThreads("gpux-core"), ProducerType.MULTI,
                ctx.busySpin ? new BusySpinWaitStrategy() :
                ctx.yielding ? new YieldingWaitStrategy() : new BlockingWaitStrategy());
            input.setDefaultExceptionHandler(new StopOnError<>("core"));
            input.handleEventsWith(core);
            inputRing = input.start();
        }

        // the journal space guard, and the pretoucher with it: one mostly sleeping thread
        pretoucher = new AgentRunner(new SleepingMillisIdleStrategy(1),
            ex -> ctx.log.accept("journal space/pretouch: " + ex), null,
            ctx.pretouch ? new CompositeAgent(space, new Pretoucher(ctx.log, commandJournal, eventJournal)) : space);
        AgentRunner.startOnThread(pretoucher, daemonThreads("gpux-pretouch"));

        replica = new SnapshotReplica(commandJournal, snapshots, recovered, quarantine, ctx.snapshotEvery, core.counters,
            ctx.nanoClock, ctx.log, hash -> core.lastHash = hash);
        replica.start();

        ticker = new Thread(this::tickLoop, "gpux-ticker");
        ticker.setDaemon(true);
        if (!ctx.announceRestart)
        {
            goLive();
        }
    }

    /**
     * Recovers; a command the engine fails on during the replay (one the live core did not get to
     * quarantine) is quarantined by recovery, which then starts over without it.
     */
    private Recovery.Result recoverSkippingPoison() throws IOException
    {
        while (true)
        {
            try
            {
                return Recovery.recover(commandJournal, eventJournal, snapshots, null, false, quarantine, ctx.log);
            }
            catch (final Quarantine.PoisonCommandException ex)
            {
                ctx.log.accept("recovering again without command " + ex.commandSequence());
            }
        }
    }

    /** Recovers from the data directory and goes live. */
    public static ExchangePipeline start(final Context ctx) throws IOException
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
        return failure == null && published(inputRing.tryPublishEvent(QUERY, query));
    }

    private boolean accepting()
    {
        return failure == null && space.refusal() == null;
    }

    /**
     * Why commands are refused now, for the producer's UNAVAILABLE answer: the core has stopped, or the
     * journal disk is short of space (until it has room again); null when commands are accepted (a
     * false {@link #tryPublish} then means the ring is full: BUSY). Any thread.
     */
    public String refusal()
    {
        final Throwable f = failure;
        return f != null ? stoppedReason(f) : space.refusal();
    }

    private String stoppedReason(final Throwable f)
    {
        return "the exchange core has stopped (" + (f.getMessage() != null ? f.getMessage() : f.getClass().getSimpleName()) +
            "): see the server log";
    }

    private boolean published(final boolean published)
    {
        if (published && poller != null)
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
        if (poller == null)
        {
            throw new IllegalStateException("this pipeline has a core thread of its own");
        }
        try
        {
            if (!pollStarted)
            {
                pollStarted = true;
                core.onStart();
            }
            pollHandler.taken = 0;
            pollHandler.limit = limit;
            poller.poll(pollHandler);
            return pollHandler.taken;
        }
        catch (final Throwable ex)
        {
            try
            {
                new StopOnError<CommandSlot>("core").handleEventException(ex, pollHandler.current, null);
            }
            catch (final RuntimeException reported)
            {
                // reported and remembered: the pipeline accepts nothing more; the polling thread goes on
            }
            // the command that failed has been answered with its batch: it is not taken again
            poller.getSequence().set(pollHandler.current);
            return 0;
        }
    }

    /** Feeds the core handler from the poller, ending the batch at the limit. */
    private final class PollHandler implements EventPoller.Handler<CommandSlot>
    {
        int limit;
        int taken;
        long current;

        @Override
        public boolean onEvent(final CommandSlot slot, final long sequence, final boolean endOfBatch)
        {
            current = sequence;
            taken++;
            final boolean last = endOfBatch || taken >= limit;
            core.onEvent(slot, sequence, last);
            return !last;
        }
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
        inputRing.tryPublishEvent(TICK, null);
    }

    public Recovery.Result recovered()
    {
        return recovered;
    }

    /**
     * With {@link Context#announceRestart}: journals the RESTART if the recovered journal held commands, then
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
        if (ctx.tickIntervalMs > 0)
        {
            ticker.start();
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

    private void tickLoop()
    {
        final long sampleEvery = Math.max(1, COUNTER_SAMPLE_MS / ctx.tickIntervalMs);
        long ticks = 0;
        while (running)
        {
            try
            {
                Thread.sleep(ctx.tickIntervalMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            inputRing.tryPublishEvent(TICK, null);
            if (++ticks % sampleEvery == 0)
            {
                sampleCounters();
            }
        }
    }

    /** Ticker: the last window of batch times, the snapshot replica's lag, and a read of the markets' figures on the core thread. */
    private void sampleCounters()
    {
        final CoreCounters counters = core.counters;
        counters.sampleBatchTimes();
        replica.sampleLag();
        if (!counters.marketFiguresPending)
        {
            counters.marketFiguresPending = true;
            if (!tryPublishQuery(counters.marketFigures))
            {
                counters.marketFiguresPending = false;
            }
        }
    }

    /** Whether a stage failed; the pipeline then accepts nothing more. */
    public boolean failed()
    {
        return failure != null;
    }

    /** Why the pipeline stopped, in one line, or null while it runs. */
    public String failureReason()
    {
        final Throwable f = failure;
        if (f == null)
        {
            return null;
        }
        return f instanceof Quarantine.PoisonCommandException ? f.getMessage() : f.getClass().getSimpleName() + ": " + f.getMessage();
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
        running = false;
        stopTicker();
        if (poller != null)
        {
            commandJournal.takeOverWriting();
            eventJournal.takeOverWriting();
        }
        if (failure == null && !drain(30_000))
        {
            ctx.log.accept("pipeline did not drain in 30 s: halting");
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
        replica.close(failure == null ? core.counters.commandSequence.get() : -1);
        if (failure == null)
        {
            core.lastHash = core.engine.stateHash();
        }
        if (pretoucher != null)
        {
            pretoucher.close();
        }
        commandJournal.takeOverWriting();
        eventJournal.takeOverWriting();
        if (failure != null)
        {
            // what the failed batch left unwritten stays so: the journals end with what was written
            commandJournal.discardBatch();
            eventJournal.discardBatch();
        }
        commandJournal.close();
        eventJournal.close();
        if (failure != null)
        {
            throw new IllegalStateException("the pipeline stopped on an error", failure);
        }
    }

    private void stopTicker()
    {
        ticker.interrupt();
        if (!ticker.isAlive())
        {
            return;
        }
        try
        {
            ticker.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for a halted stage's thread to leave its loop: its writes to the journal happen-before the return. */
    private void awaitStopped(final CountDownLatch stopped, final String stage)
    {
        try
        {
            if (!stopped.await(30, TimeUnit.SECONDS))
            {
                ctx.log.accept("the " + stage + " thread did not stop in 30 s");
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
        while (System.nanoTime() < deadline && failure == null)
        {
            final long published = inputRing.getCursor();
            if (poller != null)
            {
                // the owner has stopped polling and this thread has taken the journals over: it applies what is left
                poll(Integer.MAX_VALUE);
            }
            final long applied = poller != null ? poller.getSequence().get() : input.getSequenceValueFor(core);
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

    /**
     * An error in a stage is a bug or a broken disk: the stage stops (nothing more is journaled or
     * applied, so the journal stays a true history), the error is reported, and tryPublish answers
     * false from then on.
     */
    private final class StopOnError<T> implements com.lmax.disruptor.ExceptionHandler<T>
    {
        private final String stage;

        StopOnError(final String stage)
        {
            this.stage = stage;
        }

        @Override
        public void handleEventException(final Throwable ex, final long sequence, final T event)
        {
            if (ex instanceof Quarantine.PoisonCommandException poison)
            {
                ctx.log.accept("FATAL: " + poison.getMessage() + ". The command is quarantined and the core has " +
                    "stopped; restart the exchange: it rebuilds its state from the journal without the command.");
                failure = ex;
                running = false;
                if (core != null && "core".equals(stage))
                {
                    // as after any failure of the core: it goes on taking commands only to answer each UNAVAILABLE
                    core.abandonBatch();
                    return;
                }
                throw poison;
            }
            failure = ex;
            running = false;
            ctx.log.accept("FATAL: the " + stage + " stage failed at ring sequence " + sequence + ": " + ex);
            final java.io.StringWriter trace = new java.io.StringWriter();
            ex.printStackTrace(new java.io.PrintWriter(trace));
            ctx.log.accept(trace.toString());
            if (core != null && "core".equals(stage))
            {
                // the core goes on taking commands from the ring, only to answer each UNAVAILABLE
                core.abandonBatch();
                return;
            }
            throw ex instanceof RuntimeException r ? r : new IllegalStateException(ex);
        }

        @Override
        public void handleOnStartException(final Throwable ex)
        {
            handleEventException(ex, -1, null);
        }

        @Override
        public void handleOnShutdownException(final Throwable ex)
        {
            ctx.log.accept("the " + stage + " stage failed on shutdown: " + ex);
        }
    }

    /** Sequencer, command journal and engine, on one thread. */
    private final class CoreHandler implements EventHandler<CommandSlot>, EventSink
    {
        @Override
        public void onStart()
        {
            commandJournal.takeOverWriting();
            if (outputRing == null)
            {
                eventJournal.takeOverWriting();
            }
            for (final EventPublisher p : publishers)
            {
                p.onRecovered(engine);
            }
        }

        @Override
        public void onShutdown()
        {
            stopped.countDown();
        }

        /** Counted down when the core thread leaves its loop. */
        final CountDownLatch stopped = new CountDownLatch(1);
        private final MatchingEngine engine;
        private final EventPublisher[] publishers = ctx.publishers.toArray(new EventPublisher[0]);
        private final CommandCodec commandCodec = new CommandCodec();
        private final EventCodec eventCodec = new EventCodec();
        private final RingBuffer<EventSlot> outputRing;
        /** Inline output: the batch's events and completions, in order, published once the batch's events are journaled. */
        private Output[] outputs = new Output[1024];
        private int outputCount;
        /** The next output to hand to the publishers (those before it were handed over). */
        private int outputsPublished;
        private final CommandSlot[] batch;
        private int batchSize;
        private long sequence;
        private long lastTime;
        final CoreCounters counters = new CoreCounters(ctx.counters, ctx.ringSize);
        volatile long appliedSequence;
        volatile long lastHash;

        CoreHandler(final Recovery.Result recovered, final RingBuffer<EventSlot> outputRing)
        {
            engine = recovered.engine();
            sequence = recovered.commandSequence();
            counters.snapshotSequence.setRelease(recovered.snapshotSequence());
            counters.commandSequence.setRelease(sequence);
            counters.appliedSequence.setRelease(sequence);
            counters.eventSequence.setRelease(engine.eventSequence());
            lastTime = Math.max(0, engine.lastCommandTime());
            appliedSequence = sequence;
            lastHash = engine.stateHash();
            this.outputRing = outputRing;
            batch = new CommandSlot[Math.min(ctx.ringSize, MAX_BATCH_COMMANDS)];
            engine.sink(this);
        }

        @Override
        public void onEvent(final CommandSlot slot, final long ringSequence, final boolean endOfBatch)
        {
            if (failure != null)
            {
                // stopped: nothing more is journaled or applied; a waiting producer hears why
                slot.query = null;
                if (slot.correlation != 0)
                {
                    refused(slot.correlation, refusal());
                }
                return;
            }
            if (slot.query != null)
            {
                applyBatch();
                runQuery(slot);
            }
            else
            {
                final Command command = slot.command;
                if (batchSize == 0)
                {
                    // one reading of the clock per batch: a batch is what arrived while the last one ran
                    lastTime = Math.max(lastTime, ctx.clock.time());
                }
                command.timeMs = lastTime;
                command.sequence = ++sequence;
                batch[batchSize++] = slot;
                commandJournal.add(commandCodec.bytes(), commandCodec.encode(command));
                if (endOfBatch || batchSize == batch.length || commandJournal.pendingBytes() >= BATCH_BYTES)
                {
                    applyBatch();
                }
            }
            if (endOfBatch)
            {
                counters.inputRingOccupancy.setRelease(inputRing.getCursor() - ringSequence);
                if (outputRing != null)
                {
                    counters.outputRingOccupancy.setRelease(outputRing.getCursor() - outputRing.getMinimumGatingSequence());
                }
            }
        }

        /** Journals the batch (msync in SYNC), applies it, publishes its events and completions. */
        private void applyBatch()
        {
            if (batchSize == 0)
            {
                return;
            }
            final boolean floorHolds = space.refusal() == null;
            if (!commandJournal.hasRoom(Journal.SLACK_BYTES, floorHolds) ||
                !eventJournal.hasRoom(Journal.SLACK_BYTES + batchSize * EVENT_BYTES_PER_COMMAND, floorHolds))
            {
                refuseBatch();
                return;
            }
            final long startNs = counters.batchStart(ctx.nanoClock);
            commandJournal.endBatch();
            if (ctx.durability == Durability.SYNC)
            {
                commandJournal.sync();
            }
            counters.commandSequence.setRelease(sequence);
            final int applied = batchSize;
            for (int i = 0; i < batchSize; i++)
            {
                final CommandSlot slot = batch[i];
                try
                {
                    engine.apply(slot.command);
                }
                catch (final OutputFailure ex)
                {
                    // the event journal failed, not the engine
                    throw ex;
                }
                catch (final RuntimeException | AssertionError ex)
                {
                    throw poisoned(slot.command, ex);
                }
                if (slot.correlation != 0)
                {
                    completion(slot.command.sequence, slot.correlation);
                }
                batch[i] = null;
            }
            batchSize = 0;
            if (outputRing == null)
            {
                eventJournal.endBatch();
                publishOutputs();
            }
            appliedSequence = sequence;
            for (final EventPublisher p : publishers)
            {
                p.onBatchApplied(engine);
            }
            counters.onBatch(applied, sequence, engine.eventSequence(), ctx.nanoClock, startNs);
        }

        /**
         * The journals have no room reserved for this batch: nothing of it is written or applied, its
         * sequence numbers are given back, and each waiting producer is answered why.
         */
        private void refuseBatch()
        {
            commandJournal.discardBatch();
            sequence -= batchSize;
            final String reason = space.refusal() != null ? space.refusal() :
                "journal disk full: no space could be reserved for the journals under " + ctx.dataDir;
            for (int i = 0; i < batchSize; i++)
            {
                if (batch[i].correlation != 0)
                {
                    refused(batch[i].correlation, reason);
                }
                batch[i] = null;
            }
            batchSize = 0;
        }

        /**
         * After a failure in the middle of a batch: its commands, journaled or not, applied or not, are
         * not acknowledged; each waiting producer is answered that the core has stopped, and the
         * batch's unpublished output is dropped.
         */
        void abandonBatch()
        {
            final String reason = refusal();
            for (int i = outputsPublished; i < outputCount; i++)
            {
                if (outputs[i].completion)
                {
                    refused(outputs[i].correlation, reason);
                }
            }
            outputCount = 0;
            outputsPublished = 0;
            for (int i = 0; i < batchSize; i++)
            {
                if (batch[i] != null && batch[i].correlation != 0)
                {
                    refused(batch[i].correlation, reason);
                }
                batch[i] = null;
            }
            batchSize = 0;
        }

        private void refused(final long correlation, final String reason)
        {
            if (outputRing == null)
            {
                for (final EventPublisher p : publishers)
                {
                    p.onCommandRefused(correlation, reason);
                }
                return;
            }
            final long at = outputRing.next();
            outputRing.get(at).refusal(correlation, reason);
            outputRing.publish(at);
        }

        /**
         * The engine failed on a command, half way through it perhaps: its state can no longer be trusted.
         * The command is quarantined, nothing of the batch's output leaves (inline output: its events are
         * not written; a restart regenerates those of the commands before it), and the core stops. The
         * restart rebuilds the state from the journal, replaying the command as a TICK.
         */
        private Quarantine.PoisonCommandException poisoned(final Command command, final Throwable ex)
        {
            final String reason = Quarantine.describe(command, ex);
            try
            {
                quarantine.add(command.sequence, reason);
            }
            catch (final IOException io)
            {
                ctx.log.accept("could not record the quarantine of command " + command.sequence + ": " + io +
                    "; the next start quarantines it when it fails on it again");
            }
            if (outputRing == null)
            {
                eventJournal.discardBatch();
                outputCount = 0;
            }
            // the batch's commands are answered UNAVAILABLE by abandonBatch(), once the failure is reported
            return new Quarantine.PoisonCommandException(command.sequence, reason, ex);
        }

        /** A failing query is the query's bug: reported, and the exchange goes on. */
        private void runQuery(final CommandSlot slot)
        {
            final Query query = slot.query;
            slot.query = null;
            try
            {
                query.run(engine);
            }
            catch (final RuntimeException ex)
            {
                ctx.log.accept("query " + query + " failed: " + ex);
            }
        }

        /**
         * An engine event: encoded into the event journal's batch and kept for the publishers (inline),
         * or handed to the output thread.
         */
        @Override
        public void onEvent(final Event event)
        {
            try
            {
                counters.onEvent(event, engine);
                output(event);
            }
            catch (final RuntimeException ex)
            {
                throw new OutputFailure(ex);
            }
        }

        private void output(final Event event)
        {
            final int length = eventCodec.encode(event);
            if (outputRing == null)
            {
                eventJournal.add(eventCodec.bytes(), length);
                if (publishers.length > 0)
                {
                    nextOutput().event.copyFrom(event);
                }
                return;
            }
            final long at = outputRing.next();
            outputRing.get(at).set(eventCodec.bytes(), length);
            outputRing.publish(at);
        }

        private void completion(final long commandSequence, final long correlation)
        {
            if (outputRing == null)
            {
                if (publishers.length > 0)
                {
                    nextOutput().completion(commandSequence, correlation);
                }
                return;
            }
            final long at = outputRing.next();
            outputRing.get(at).completion(commandSequence, correlation);
            outputRing.publish(at);
        }

        private Output nextOutput()
        {
            if (outputCount == outputs.length)
            {
                outputs = java.util.Arrays.copyOf(outputs, outputCount * 2);
            }
            Output out = outputs[outputCount];
            if (out == null)
            {
                out = new Output();
                outputs[outputCount] = out;
            }
            outputCount++;
            out.completion = false;
            return out;
        }

        /** Inline output, after the batch's events are in the event journal: to the publishers, in order. */
        private void publishOutputs()
        {
            for (; outputsPublished < outputCount; outputsPublished++)
            {
                final Output out = outputs[outputsPublished];
                for (final EventPublisher p : publishers)
                {
                    if (out.completion)
                    {
                        p.onCommandComplete(out.commandSequence, out.correlation);
                    }
                    else
                    {
                        p.onEvent(out.event);
                    }
                }
            }
            outputCount = 0;
            outputsPublished = 0;
        }
    }

    /** The event journal or the output ring failed while the engine was emitting an event. */
    private static final class OutputFailure extends RuntimeException
    {
        OutputFailure(final RuntimeException cause)
        {
            super("writing an event failed: " + cause, cause);
        }
    }

    /** An event or a command's completion waiting for its batch's events to be journaled (inline output). */
    private static final class Output
    {
        final Event event = new Event();
        boolean completion;
        long commandSequence;
        long correlation;

        void completion(final long commandSequence, final long correlation)
        {
            completion = true;
            this.commandSequence = commandSequence;
            this.correlation = correlation;
        }
    }

    /** Event journal, then every publisher, on the output thread. */
    private static final class OutputHandler implements EventHandler<EventSlot>
    {
        private final Journal journal;
        private final EventPublisher[] publishers;
        private final EventCodec codec = new EventCodec();
        private final Event event = new Event();
        private final EventSlot[] pending;
        private int pendingCount;

        OutputHandler(final Journal journal, final List<EventPublisher> publishers, final int ringSize)
        {
            this.journal = journal;
            this.publishers = publishers.toArray(new EventPublisher[0]);
            pending = new EventSlot[ringSize];
        }

        /** Counted down when the output thread leaves its loop. */
        final CountDownLatch stopped = new CountDownLatch(1);

        @Override
        public void onStart()
        {
            journal.takeOverWriting();
        }

        @Override
        public void onShutdown()
        {
            stopped.countDown();
        }

        @Override
        public void onEvent(final EventSlot slot, final long sequence, final boolean endOfBatch)
        {
            if (!slot.completion)
            {
                journal.add(slot.bytes, slot.length);
            }
            pending[pendingCount++] = slot;
            if (endOfBatch || pendingCount == pending.length || journal.pendingBytes() >= BATCH_BYTES)
            {
                journal.endBatch();
                for (int i = 0; i < pendingCount; i++)
                {
                    publish(pending[i]);
                    pending[i] = null;
                }
                pendingCount = 0;
            }
        }

        private void publish(final EventSlot slot)
        {
            if (publishers.length == 0)
            {
                return;
            }
            if (slot.completion)
            {
                for (final EventPublisher p : publishers)
                {
                    if (slot.refusal != null)
                    {
                        p.onCommandRefused(slot.correlation, slot.refusal);
                    }
                    else
                    {
                        p.onCommandComplete(slot.commandSequence, slot.correlation);
                    }
                }
                return;
            }
            System.arraycopy(slot.bytes, 0, codec.bytes(), 0, slot.length);
            final String problem = codec.decode(slot.length, event);
            if (problem != null)
            {
                throw new UncheckedIOException(new IOException("event record does not decode: " + problem));
            }
            for (final EventPublisher p : publishers)
            {
                p.onEvent(event);
            }
        }
    }
}
