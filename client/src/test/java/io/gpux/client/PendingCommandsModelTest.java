package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The queue of unanswered commands against a plain list model of its rules: answers settle entries
 * in any order (answers to refused commands overtake the others), the ring wraps and closes its gaps,
 * connections are lost and commands written again, and after every step the queue holds the same
 * entries, in the same order, with the same marks, and has settled and written the same ones.
 */
class PendingCommandsModelTest
{
    /** One step: 0 offer, 1 write (up to arg), 2 answer the arg-th entry, 3 its Accepted event, 4 lose the connection. */
    record Step(int kind, int arg, boolean duplicate)
    {
    }

    @Provide
    Arbitrary<List<Step>> steps()
    {
        final Arbitrary<Step> step = Arbitraries.integers().between(0, 9).flatMap(k ->
            Arbitraries.integers().between(0, 40).flatMap(arg -> Arbitraries.of(true, false).map(dup ->
                new Step(k <= 3 ? 0 : k <= 5 ? 1 : k <= 7 ? 2 : k == 8 ? 3 : 4, arg, dup))));
        return step.list().ofMinSize(1).ofMaxSize(300);
    }

    /** The model: the entries, oldest first. */
    private static final class Entry
    {
        final long requestId;
        final Envelope command;
        boolean sentBefore;
        Reason answered;
        long answeredCommandSeq;
        long answeredEventSeq;

        Entry(final long requestId, final Envelope command)
        {
            this.requestId = requestId;
            this.command = command;
        }
    }

    @Property(tries = 300)
    void behavesLikeTheListModel(@ForAll("steps") final List<Step> steps, @ForAll @IntRange(min = 1, max = 9) final int capacity)
    {
        final List<String> settled = new ArrayList<>();
        final PendingCommands queue = new PendingCommands(capacity,
            (requestId, response) -> settled.add(requestId + ":" + response.getReason()));
        final List<String> modelSettled = new ArrayList<>();
        final List<Entry> model = new ArrayList<>();
        int modelWritten = 0;
        final List<Long> wire = new ArrayList<>();
        final List<Long> modelWire = new ArrayList<>();
        long nextRequestId = 1;
        long eventSeq = 0;

        for (final Step step : steps)
        {
            switch (step.kind())
            {
                case 0 ->
                {
                    final long rid = nextRequestId++;
                    final Envelope bid = Envelope.newBuilder().setRequestId(rid)
                        .setPlaceBid(PlaceBid.newBuilder().setOrderId(rid).setMarket("M").setGpus(1).setPrice(1)).build();
                    final boolean taken = queue.offer(rid, bid);
                    assertEquals(model.size() < capacity, taken, "offer when " + model.size() + " of " + capacity);
                    if (taken)
                    {
                        model.add(new Entry(rid, bid));
                    }
                }
                case 1 ->
                {
                    final int[] budget = {step.arg() % 5};
                    queue.writeUnsent(command ->
                    {
                        if (budget[0] == 0)
                        {
                            return false;
                        }
                        budget[0]--;
                        wire.add(command.getRequestId());
                        return true;
                    });
                    int b = step.arg() % 5;
                    while (modelWritten < model.size() && b > 0)
                    {
                        modelWire.add(model.get(modelWritten++).requestId);
                        b--;
                    }
                }
                case 2 ->
                {
                    if (modelWritten == 0)
                    {
                        // answers come only for what was written on this connection
                        assertEquals(false, queue.onResponse(nextRequestId + 1000, Response.getDefaultInstance()));
                        continue;
                    }
                    final int i = step.arg() % modelWritten;
                    final Entry e = model.remove(i);
                    modelWritten--;
                    final Reason reason = step.duplicate() ? Reason.DUPLICATE_ORDER_ID : Reason.REASON_OK;
                    modelSettled.add(e.requestId + ":" + (e.sentBefore ? Reason.REASON_OK : reason));
                    assertEquals(true, queue.onResponse(e.requestId, Response.newBuilder().setReason(reason).build()));
                }
                case 3 ->
                {
                    if (model.isEmpty())
                    {
                        continue;
                    }
                    final Entry target = model.get(step.arg() % model.size());
                    eventSeq++;
                    final AccountEvent accepted = AccountEvent.newBuilder().setSeq(eventSeq).setCommandSeq(eventSeq + 100)
                        .setAccepted(Accepted.newBuilder().setOrderId(target.requestId)).build();
                    boolean modelAnswered = false;
                    for (int i = 0; i < model.size(); i++)
                    {
                        final Entry e = model.get(i);
                        final boolean written = i < modelWritten;
                        if (e.answered != null || !(written || e.sentBefore) || e.requestId != target.requestId)
                        {
                            continue;
                        }
                        if (written)
                        {
                            e.answered = Reason.REASON_OK;
                            e.answeredCommandSeq = eventSeq + 100;
                            e.answeredEventSeq = eventSeq;
                        }
                        else
                        {
                            model.remove(i);
                            modelSettled.add(e.requestId + ":" + Reason.REASON_OK);
                        }
                        modelAnswered = true;
                        break;
                    }
                    assertEquals(modelAnswered, queue.onEvent(accepted));
                }
                default ->
                {
                    queue.onConnectionLost();
                    int i = 0;
                    int written = modelWritten;
                    while (written-- > 0)
                    {
                        final Entry e = model.get(i);
                        if (e.answered != null)
                        {
                            model.remove(i);
                            modelSettled.add(e.requestId + ":" + e.answered);
                        }
                        else
                        {
                            e.sentBefore = true;
                            i++;
                        }
                    }
                    modelWritten = 0;
                }
            }
            assertEquals(model.size(), queue.size(), "size after " + step);
            assertEquals(modelWritten, queue.writtenCount(), "written after " + step);
            for (int i = 0; i < model.size(); i++)
            {
                assertEquals(model.get(i).requestId, queue.requestIdAt(i), "entry " + i + " after " + step);
                assertEquals(model.get(i).sentBefore, queue.sentBeforeAt(i), "mark of entry " + i + " after " + step);
            }
            assertEquals(modelSettled, settled, "settled after " + step);
            assertEquals(modelWire, wire, "written after " + step);
        }
    }
}
