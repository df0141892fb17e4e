package io.gpux.gateway.egress;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;
import io.gpux.engine.funds.Account;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over a long event journal (one document per command, as the pipeline writes a batch): the egress starts
 * tailing at its end having read a document or two, and a resend reads what the account missed, found
 * by the engine's back-links and seeks by engine sequence, not the journal between its events.
 */
class JournalResendTest
{
    private static final int COMMANDS = 20_000;
    private static final int QUIET_EVERY = 2_000;
    /** Documents a {@code read} call may read in these tests. */
    private static final int QUANTUM = 64;

    @TempDir
    Path dir;

    private final Symbols symbols = new Symbols();
    private final ScenarioParser parser = new ScenarioParser(symbols);
    private final EventCodec codec = new EventCodec();
    private Journal journal;
    private MatchingEngine engine;
    private final Command command = new Command();
    private int line;
    private long time;

    @BeforeEach
    void writeALongJournal() throws ScenarioException
    {
        journal = Journal.open(dir);
        engine = new MatchingEngine(e -> journal.add(codec.bytes(), codec.encode(e)));
        apply("0 ACCOUNT id=busy roles=RENTER");
        apply("0 ACCOUNT id=quiet roles=RENTER");
        for (int i = 1; i <= COMMANDS; i++)
        {
            apply(++time + " DEPOSIT account=" + (i % QUIET_EVERY == 0 ? "quiet" : "busy") + " amount=1");
        }
    }

    @AfterEach
    void close()
    {
        journal.close();
    }

    private void apply(final String text) throws ScenarioException
    {
        if (parser.parse(text, ++line, command))
        {
            engine.apply(command);
            journal.endBatch();
        }
    }

    private Account account(final String name)
    {
        return engine.account(symbols.accounts.existing(name));
    }

    @Test
    void theEngineNumbersEachAccountsEventsAndLinksThemBack()
    {
        assertEquals(COMMANDS / QUIET_EVERY, account("quiet").lastSeq);
        assertEquals(COMMANDS - COMMANDS / QUIET_EVERY, account("busy").lastSeq);
        assertEquals(engine.eventSequence(), account("quiet").lastEventSequence);
    }

    @Test
    void theEgressStartsAtTheEndOfTheJournalReadingADocumentOrTwo() throws ScenarioException
    {
        final List<Journal.Reader> readers = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        final Egress egress = new Egress(() ->
        {
            final Journal.Reader r = journal.reader();
            readers.add(r);
            return r;
        }, new Directory(), (s, slot, reject, response) -> { }, new Egress.ResendLimits(1, 1, 1 << 20), log::add);
        egress.onStart();
        try
        {
            assertTrue(egress.caughtUp());
            assertEquals(engine.eventSequence(), egress.tailedEventSeq());
            assertTrue(readers.get(0).documentsRead() <= 2, "documents read at start: " + readers.get(0).documentsRead());
            assertTrue(log.get(0).contains("tailing the event journal after event " + engine.eventSequence()), log.get(0));

            apply(++time + " DEPOSIT account=quiet amount=1");
            egress.sendLive();
            assertEquals(engine.eventSequence(), egress.tailedEventSeq());
            assertTrue(readers.get(0).documentsRead() <= 3, "documents read: " + readers.get(0).documentsRead());
        }
        finally
        {
            egress.onClose();
        }
    }

    @Test
    void aQuietAccountsResendReadsWhatItMissedNotTheJournalBetween()
    {
        final Account quiet = account("quiet");
        final long after = 3;
        final List<Envelope> sent = resend(quiet, after);
        final long missing = quiet.lastSeq - after;
        final long otherEvents = engine.eventSequence() - COMMANDS;
        assertEquals(missing + 1, sent.size());
        for (int i = 0; i < missing; i++)
        {
            assertEquals(after + 1 + i, sent.get(i).getEvent().getSeq());
            assertEquals(QUIET_EVERY * (after + 1 + i) + otherEvents, sent.get(i).getEvent().getEngineSeq());
        }
        assertEquals(quiet.lastSeq, sent.get((int)missing).getResendComplete().getLastSeq());
        final long documents = COMMANDS + 2;
        final long logN = 64 - Long.numberOfLeadingZeros(documents);
        // each missing event: found walking back, then read forward, each a search over the index
        assertTrue(reads <= missing * 2 * (2 * logN + 4), "documents read: " + reads);
        assertTrue(reads < documents / 20, "documents read: " + reads);
    }

    @Test
    void aBusyAccountsResendReadsAboutTheDocumentsOfItsEvents()
    {
        final Account busy = account("busy");
        final long after = busy.lastSeq - 5_000;
        final List<Envelope> sent = resend(busy, after);
        assertEquals(5_001, sent.size());
        long engineSeq = 0;
        for (int i = 0; i < 5_000; i++)
        {
            assertEquals(after + 1 + i, sent.get(i).getEvent().getSeq());
            assertTrue(sent.get(i).getEvent().getEngineSeq() > engineSeq);
            engineSeq = sent.get(i).getEvent().getEngineSeq();
        }
        assertEquals(engine.eventSequence() - 1, engineSeq, "the busy account's last event is just before the quiet one's");
        // a step back or forth to a neighbouring document is a galloping search of a few probes
        assertTrue(reads <= 5_000 * 8, "documents read: " + reads);
    }

    @Test
    void anEventTheJournalNoLongerHoldsEndsTheResendWithTheReason() throws Exception
    {
        final Account quiet = account("quiet");
        final Session session = new Session(1, new EmbeddedChannel(), quiet.id, "quiet", 0, false, 1);
        try (Journal.Reader reader = journal.reader())
        {
            final ResendCursor c = new ResendCursor(session, reader, 0, quiet.lastSeq);
            final ByteBuf out = Unpooled.buffer();
            // an account's newest event at a sequence the journal has not got
            c.read(Resends.BUDGET, quiet.lastSeq + 1, engine.eventSequence() + 10, out, new EventFrames(new Directory()), () -> false);
            assertTrue(c.failure.contains("no longer holds the account's event " + (quiet.lastSeq + 1)), c.failure);
            out.release();
        }
    }

    @Test
    void aTurnWhoseSliceIsOverStopsAfterOneStepAndTheResendStillSendsEveryEventOnceInOrder()
    {
        final Account quiet = account("quiet");
        final long after = 3;
        final List<Envelope> whole = resend(quiet, after);
        final long wholeReads = reads;
        final int wholeCalls = readCalls;
        final List<Envelope> stepByStep = resend(quiet, after, () -> true);
        assertEquals(whole, stepByStep);
        assertEquals(wholeReads, reads, "turns of one step read no document twice");
        // one step a turn: each missing event is walked back to and then sent, a step each
        final long missing = quiet.lastSeq - after;
        assertTrue(readCalls >= 2 * missing && readCalls > wholeCalls, "turns: " + readCalls + ", in quanta: " + wholeCalls);
    }

    @Test
    void theReaderReadsARoundUntilItsTimeIsGoneAndItsRoundsMakeTheWholeResend()
    {
        final Account quiet = account("quiet");
        final long after = 3;
        final List<Envelope> whole = resend(quiet, after);
        // every read of the reader's clock is 60 us later: a round's time (200 us) is gone after its fourth step
        final long[] now = {0};
        final ResendReader reader = new ResendReader(4, new Directory(), () -> { }, line -> { }, () -> now[0] += 60_000);
        final Session session = new Session(1, new EmbeddedChannel(), quiet.id, "quiet", 0, false, 1);
        try (Journal.Reader r = journal.reader())
        {
            final ResendCursor c = new ResendCursor(session, r, after, quiet.lastSeq);
            c.targetSeq = quiet.lastSeq;
            c.targetEvent = quiet.lastEventSequence;
            final ByteBuf all = Unpooled.buffer();
            int rounds = 0;
            while (!c.caughtUp(quiet.lastSeq))
            {
                reader.round(c);
                assertNull(c.failure);
                all.writeBytes(c.chunk);
                c.chunk.release();
                c.chunk = null;
                assertTrue(++rounds < 1_000);
            }
            final List<Envelope> sent = TestFrames.envelopes(all);
            all.release();
            assertEquals(whole, sent, "every event once, in order, then ResendComplete");
            // each missing event is walked back to and then sent: a step each, four steps a round
            final long steps = 2 * (quiet.lastSeq - after);
            assertEquals((steps + 3) / 4, rounds);
        }
    }

    @Test
    void theEgressResendsThroughItsReaderThreadEveryEventOnceInOrderThenTheSessionIsLive() throws Exception
    {
        final Account quiet = account("quiet");
        final Egress egress = new Egress(journal::reader, new Directory(), (s, slot, reject, response) -> { },
            new Egress.ResendLimits(1, 1, 1 << 20), line -> { });
        egress.onStart();
        try
        {
            final EmbeddedChannel channel = new EmbeddedChannel();
            final Session session = new Session(1, channel, quiet.id, "quiet", 0, false, 1);
            assertTrue(egress.offer(new Egress.Attach(session, 3, 1000, 1 << 20, engine.eventSequence(), quiet.lastSeq,
                quiet.lastEventSequence)));
            final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (!session.live && System.nanoTime() < deadline)
            {
                egress.doWork();
                Thread.onSpinWait();
            }
            assertTrue(session.live, "live once the resend is done");
            assertEquals(0, egress.resendsInProgress());
            final List<Envelope> sent = TestFrames.written(channel);
            assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, sent.get(0).getBodyCase());
            final List<Envelope> resent = sent.subList(1, sent.size());
            assertEquals(resend(quiet, 3), resent, "the account's events after 3, in order, once each, then ResendComplete");
        }
        finally
        {
            egress.onClose();
        }
    }

    private long reads;
    /** How many turns ({@code read} calls) the last {@link #resend} took. */
    private int readCalls;

    private List<Envelope> resend(final Account account, final long after)
    {
        return resend(account, after, () -> false);
    }

    private List<Envelope> resend(final Account account, final long after, final BooleanSupplier sliceOver)
    {
        final Session session = new Session(1, new EmbeddedChannel(), account.id, "a", 0, false, 1);
        final List<Envelope> sent = new ArrayList<>();
        try (Journal.Reader reader = journal.reader())
        {
            final ResendCursor c = new ResendCursor(session, reader, after, account.lastSeq);
            final EventFrames frames = new EventFrames(new Directory());
            final ByteBuf out = Unpooled.buffer();
            int slices = 0;
            readCalls = 0;
            while (!c.caughtUp(account.lastSeq))
            {
                final int n = c.read(QUANTUM, account.lastSeq, account.lastEventSequence, out, frames, sliceOver);
                assertTrue(n > 0);
                readCalls++;
                assertNull(c.failure);
                assertTrue(++slices < 1_000_000);
            }
            sent.addAll(TestFrames.envelopes(out));
            out.release();
            reads = reader.documentsRead();
        }
        return sent;
    }
}
