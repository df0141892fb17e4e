package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EventType;
import io.gpux.engine.event.RejectReason;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A quote is a dry run: it changes nothing, and it predicts exactly what the bid then does. Over
 * busy random markets (preemption, gangs, constraints, funds, offline machines), every BID is first
 * quoted, then applied, and the quote is compared with the bid's own events.
 */
class QuoteTest
{
    private record Fill(long machineOrLease, int gpus, long price, long preempts)
    {
    }

    @Test
    void quotesPredictWhatBidsDoAndChangeNothing() throws Exception
    {
        int bids = 0;
        int withFills = 0;
        int withPreemptions = 0;
        for (long seed = 1; seed <= 6; seed++)
        {
            final Symbols symbols = new Symbols();
            final ScenarioParser parser = new ScenarioParser(symbols);
            final List<Fill> fills = new ArrayList<>();
            final RejectReason[] rejected = new RejectReason[1];
            final boolean[] fokCancelled = new boolean[1];
            final long[] bidOrder = new long[2];
            final MatchingEngine engine = new MatchingEngine(e ->
            {
                if (e.type == EventType.REJECTED && e.command == CommandType.BID)
                {
                    rejected[0] = e.rejectReason;
                }
                else if (e.type == EventType.FILL && e.orderId == bidOrder[0] && e.accountId == bidOrder[1])
                {
                    fills.add(new Fill(e.leaseId, e.gpus, e.price, e.preemptsLeaseId));
                }
                else if (e.type == EventType.CANCELLED && e.cancelReason == CancelReason.FOK &&
                    e.orderId == bidOrder[0] && e.accountId == bidOrder[1])
                {
                    fokCancelled[0] = true;
                }
            });
            final Quote quote = new Quote();
            final String[] lines = RandomScenario.scenario(seed, 3000).split("\n");
            int lineNo = 0;
            for (final String line : lines)
            {
                final Command cmd = new Command();
                if (!parser.parse(line, ++lineNo, cmd))
                {
                    continue;
                }
                if (cmd.type != CommandType.BID)
                {
                    engine.apply(cmd);
                    continue;
                }
                // the quote sees the state as of the bid's time: fire due timers first with a TICK
                final Command tick = new Command().reset(CommandType.TICK, cmd.timeMs);
                engine.apply(tick);
                final long hash = engine.stateHash();
                final long events = engine.eventSequence();
                engine.quote(cmd, quote);
                assertEquals(hash, engine.stateHash(), "a quote changes no state (line " + lineNo + ")");
                assertEquals(events, engine.eventSequence(), "a quote emits no event (line " + lineNo + ")");

                fills.clear();
                rejected[0] = null;
                fokCancelled[0] = false;
                bidOrder[0] = cmd.orderId;
                bidOrder[1] = cmd.accountId;
                engine.apply(cmd);
                bids++;
                final String where = "seed " + seed + " line " + lineNo + ": " + line;
                assertEquals(rejected[0], quote.reject, "reject, " + where);
                if (rejected[0] != null)
                {
                    continue;
                }
                assertEquals(fokCancelled[0], quote.fokCancelled, "FOK, " + where);
                int filled = 0;
                int preempted = 0;
                final List<Long> fillPrices = new ArrayList<>();
                final List<Long> victims = new ArrayList<>();
                for (final Fill f : fills)
                {
                    if (f.preempts == 0)
                    {
                        filled += f.gpus;
                        fillPrices.add(f.price);
                    }
                    else
                    {
                        preempted += f.gpus;
                        victims.add(f.preempts);
                    }
                }
                assertEquals(filled, quote.filledGpus, "GPUs from open asks, " + where);
                assertEquals(preempted, quote.preemptedGpus, "GPUs from preemption, " + where);
                final List<Long> quotedPrices = new ArrayList<>();
                for (int i = 0; i < quote.fillCount; i++)
                {
                    quotedPrices.add(quote.fillPrice[i]);
                }
                if (quote.preemptionCount == 0)
                {
                    assertEquals(fillPrices, quotedPrices, "fill prices in order, " + where);
                }
                final List<Long> quotedVictims = new ArrayList<>();
                for (int i = 0; i < quote.preemptionCount; i++)
                {
                    quotedVictims.add(quote.preemptLease[i]);
                }
                assertEquals(victims.stream().sorted().toList(), quotedVictims.stream().sorted().toList(),
                    "preempted leases, " + where);
                withFills += filled > 0 ? 1 : 0;
                withPreemptions += preempted > 0 ? 1 : 0;
            }
        }
        assertTrue(bids > 1000, "enough bids: " + bids);
        assertTrue(withFills > 50, "enough bids that filled: " + withFills);
        assertTrue(withPreemptions > 10, "enough bids that preempted: " + withPreemptions);
    }
}
