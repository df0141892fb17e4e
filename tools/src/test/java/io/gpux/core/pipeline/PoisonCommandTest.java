package io.gpux.core.pipeline;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.core.journal.Journal;
import io.gpux.tools.JournalTool;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A command the engine fails on cannot crash-loop the exchange: the live core quarantines it, stops and
 * refuses every later command with the reason; a restart on the same directory starts, reports the
 * quarantined command, and has applied every command acknowledged before it (and none of it); every
 * replay of the journal with the quarantine reaches the same state. The failure is injected through
 * the engine's admin hook, on one DEPOSIT.
 */
class PoisonCommandTest
{
    private static final long TIME = 1_700_000_000_000L;
    private static final long POISON_AMOUNT = 666_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(TIME);
    private final Symbols symbols = new Symbols();
    private final ScenarioParser parser = new ScenarioParser(symbols);

    @ParameterizedTest(name = "inline output: {0}")
    @ValueSource(booleans = {true, false})
    void aCommandTheEngineFailsOnIsQuarantinedAndTheExchangeStartsAgain(final boolean inlineOutput) throws Exception
    {
        final List<String> before = List.of(
            "0 CONFIG heartbeatTimeoutMs=0",
            "0 MARKET id=H100",
            "0 ACCOUNT id=own roles=OWNER",
            "0 ACCOUNT id=r1 roles=RENTER",
            "0 DEPOSIT account=r1 amount=10",
            "0 MACHINE id=m1 owner=own market=H100 gpus=2",
            "0 HEARTBEAT machine=m1",
            "0 ASK id=a1 account=own machine=m1 gpus=2 price=1.0000",
            "0 BID id=b1 account=r1 market=H100 gpus=1 price=1.0000");
        final long r1 = symbols.accounts.id("r1");

        final ConcurrentLinkedQueue<String> liveLog = new ConcurrentLinkedQueue<>();
        final ExchangePipeline live = ExchangePipeline.start(context(liveLog, inlineOutput));
        live.recovered().engine().adminHook(c ->
        {
            if (c.type == CommandType.DEPOSIT && c.amount == POISON_AMOUNT)
            {
                throw new IllegalStateException("injected fault");
            }
        });
        for (final String line : before)
        {
            publishAndWait(live, line);
        }
        // two hours later: the lease's period settlements fall due first, on the poison's own sequence
        now.addAndGet(7_200_000L);
        assertTrue(live.tryPublish(command("0 DEPOSIT account=r1 amount=666")));
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!live.failed() && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertTrue(live.failed(), "the core stops on the command the engine failed on");
        final String reason = live.failureReason();
        assertTrue(reason.startsWith("command 10 (DEPOSIT, account " + r1 + "): the engine failed: " +
            "IllegalStateException: injected fault (at "), reason);
        assertFalse(live.tryPublish(command("0 DEPOSIT account=r1 amount=1")), "later commands are refused");
        assertEquals(before.size(), live.appliedCommands());
        assertTrue(liveLog.stream().anyMatch(l -> l.startsWith("FATAL: " + reason)), liveLog.toString());
        assertTrue(liveLog.stream().noneMatch(l -> l.contains("\tat ")), "no stack trace: " + liveLog);
        assertThrows(IllegalStateException.class, live::close);
        assertTrue(Files.readString(dir.resolve("quarantine")).startsWith("10 " + reason));

        final ConcurrentLinkedQueue<String> restartLog = new ConcurrentLinkedQueue<>();
        final ExchangePipeline restarted = ExchangePipeline.start(context(restartLog, inlineOutput));
        final long hash;
        try (restarted)
        {
            assertEquals(1, restarted.recovered().quarantinedCommands());
            assertEquals(10, restarted.recovered().commandSequence());
            assertTrue(restartLog.contains("quarantined, replayed as a TICK: " + reason), restartLog.toString());
            final MatchingEngine engine = restarted.recovered().engine();
            assertEquals(10_000_000L, engine.totalMoney(), "the deposit before applied, the poison not");
            assertTrue(engine.lease(1).settledMs >= 3_600_000L, "the settlements due at the poison's time were made");
            assertNotNull(engine.lease(1), "the lease made before the poison is there");
            publishAndWait(restarted, "0 DEPOSIT account=r1 amount=5");
            assertEquals(11, restarted.appliedCommands());
            assertNull(restarted.failureReason());
        }
        hash = restarted.lastStateHash();

        try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
            Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            for (int replay = 0; replay < 2; replay++)
            {
                final Recovery.Result r = Recovery.recover(commands, events, null, null, true, Quarantine.load(dir), m -> { });
                assertEquals(hash, r.engine().stateHash(), "replay " + replay + " reaches the same state");
                assertEquals(15_000_000L, r.engine().totalMoney());
                assertEquals(0, r.appendedEvents(), "every event regenerated is in the event journal");
            }
            final Recovery.RecoveryException unquarantined = assertThrows(Recovery.RecoveryException.class,
                () -> Recovery.recover(commands, events, null, null, true, Quarantine.none(), m -> { }));
            assertTrue(unquarantined.getMessage().contains("event"), "without the quarantine the history differs: " +
                unquarantined.getMessage());
        }
        final String verify = journalVerify();
        assertTrue(verify.contains("from scratch: 11 commands (1 quarantined, replayed as TICKs)"), verify);
        assertTrue(verify.contains("journal verified"), verify);
    }

    /**
     * Events of a quarantined command that reached the event journal (an output thread may have written
     * some before the engine failed) are dropped on every replay, and a restart goes on after them.
     */
    @Test
    void eventsOfAQuarantinedCommandInTheEventJournalAreDroppedOnReplay() throws Exception
    {
        final long r1 = symbols.accounts.id("r1");
        try (ExchangePipeline first = ExchangePipeline.start(context(new ConcurrentLinkedQueue<>(), true)))
        {
            publishAndWait(first, "0 ACCOUNT id=r1 roles=RENTER");
            publishAndWait(first, "0 DEPOSIT account=r1 amount=10");
            publishAndWait(first, "0 DEPOSIT account=r1 amount=666");
        }
        // as if the engine had failed on the third command after its BALANCE event was written
        Files.writeString(dir.resolve("quarantine"), "3 command 3 (DEPOSIT, account " + r1 + "): the engine failed\n");
        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        try (ExchangePipeline restarted = ExchangePipeline.start(context(log, true)))
        {
            assertEquals(10_000_000L, restarted.recovered().engine().totalMoney());
            assertTrue(log.stream().anyMatch(l -> l.matches("event \\d+ of quarantined command 3 dropped")), log.toString());
            publishAndWait(restarted, "0 DEPOSIT account=r1 amount=5");
        }
        try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
            Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            final Recovery.Result r = Recovery.recover(commands, events, null, null, true, Quarantine.load(dir), m -> { });
            assertEquals(15_000_000L, r.engine().totalMoney());
            assertEquals(1, r.quarantinedCommands());
            assertEquals(0, r.appendedEvents());
            assertEquals(3, Recovery.lastEventSequence(events), "the dropped event keeps its number: none is used twice");
            assertEquals(3, r.engine().eventSequence());
        }
    }

    /**
     * The live core failed on a command but its quarantine record was lost (the process died first): the
     * replay fails on the command too, recovery quarantines it, and the next recovery replays it as a TICK.
     */
    @Test
    void recoveryQuarantinesACommandTheEngineFailsOnDuringTheReplay() throws Exception
    {
        final long r1 = symbols.accounts.id("r1");
        final Consumer<Command> fault = c ->
        {
            if (c.type == CommandType.DEPOSIT && c.amount == POISON_AMOUNT)
            {
                throw new IllegalArgumentException("fails every time");
            }
        };
        final ExchangePipeline live = ExchangePipeline.start(context(new ConcurrentLinkedQueue<>(), true));
        live.recovered().engine().adminHook(fault);
        publishAndWait(live, "0 ACCOUNT id=r1 roles=RENTER");
        publishAndWait(live, "0 DEPOSIT account=r1 amount=10");
        assertTrue(live.tryPublish(command("0 DEPOSIT account=r1 amount=666")));
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!live.failed() && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertThrows(IllegalStateException.class, live::close);
        Files.delete(dir.resolve("quarantine"));

        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        final Quarantine quarantine = Quarantine.load(dir);
        try (Journal commands = Journal.open(dir.resolve("commands"));
            Journal events = Journal.open(dir.resolve("events")))
        {
            final Quarantine.PoisonCommandException poison = assertThrows(Quarantine.PoisonCommandException.class,
                () -> Recovery.recover(commands, events, null, null, false, quarantine,
                    engine -> engine.adminHook(fault), log::add));
            assertEquals(3, poison.commandSequence());
            assertTrue(poison.getMessage().startsWith("command 3 (DEPOSIT, account " + r1 +
                "): the engine failed: IllegalArgumentException: fails every time (at "), poison.getMessage());
            assertTrue(log.contains("quarantined on replay: " + poison.getMessage()), log.toString());
        }
        assertTrue(Quarantine.load(dir).contains(3), "recorded in the data directory");
        final ConcurrentLinkedQueue<String> restartLog = new ConcurrentLinkedQueue<>();
        try (ExchangePipeline restarted = ExchangePipeline.start(context(restartLog, true)))
        {
            assertEquals(1, restarted.recovered().quarantinedCommands(), restartLog.toString());
            assertEquals(10_000_000L, restarted.recovered().engine().totalMoney());
            publishAndWait(restarted, "0 DEPOSIT account=r1 amount=5");
        }
        try (Journal commands = Journal.openReadOnly(dir.resolve("commands"));
            Journal events = Journal.openReadOnly(dir.resolve("events")))
        {
            assertEquals(15_000_000L,
                Recovery.recover(commands, events, null, null, true, Quarantine.load(dir), m -> { }).engine().totalMoney());
        }
    }

    private PipelineContext context(final ConcurrentLinkedQueue<String> log, final boolean inlineOutput)
    {
        return new PipelineContext().dataDir(dir).clock(now::get).tickIntervalMs(0).snapshotEvery(0)
            .pretouch(false).inlineOutput(inlineOutput).log(log::add);
    }

    /** {@code gpux journal verify DIR}: its output; it must succeed. */
    private String journalVerify()
    {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            assertEquals(0, new CommandLine(new JournalTool()).execute("verify", dir.toString()));
        }
        finally
        {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private Command command(final String line) throws Exception
    {
        final Command c = new Command();
        assertTrue(parser.parse(line, 1, c));
        return c;
    }

    private void publishAndWait(final ExchangePipeline pipeline, final String line) throws Exception
    {
        final long target = pipeline.appliedCommands() + 1;
        assertTrue(pipeline.tryPublish(command(line)), line);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (pipeline.appliedCommands() < target && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(target, pipeline.appliedCommands(), line);
    }
}
