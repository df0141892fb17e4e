package io.gpux.sim.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.sim.market.MarketAccess;
import io.gpux.sim.market.MarketRules;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A seller's machines all get registered across a dropped connection: a registration in flight when the connection
 * drops is never answered, so the seller sends it again (registration goes by name: one that went through is
 * answered with its id), and waits while disconnected.
 */
class SellerRegistrationTest
{
    @Test
    void aRegistrationInFlightWhenTheConnectionDropsIsSentAgainOnceConnected()
    {
        final Owner owner = Population.build(42, 10, MarketRules.SIM, 0, 1.0, 0, 0, 1.0).owners.get(0);
        final RecordingAccess access = new RecordingAccess();
        owner.attach(access);
        owner.start();
        final int machines = owner.fleet.size();
        assertEquals(machines, access.registrations.size(), "one registration per machine");
        final List<String> names = names(access.registrations);

        // none answered; the connection drops: nothing can be sent until it is back
        access.connected = false;
        owner.onDisconnected("connection reset", true);
        assertEquals(machines, access.registrations.size());
        access.connected = true;
        access.runScheduled();
        assertEquals(2 * machines, access.registrations.size(), "each sent again once connected");
        assertEquals(names, names(access.registrations.subList(machines, 2 * machines)));

        // answered now: a later drop sends nothing again
        for (int i = machines; i < 2 * machines; i++)
        {
            owner.onResponse(i + 1, Response.newBuilder().setReason(Reason.REASON_OK).setAssignedId(100 + i).build());
        }
        owner.onDisconnected("connection reset", true);
        access.runScheduled();
        assertEquals(2 * machines, access.registrations.size());
        assertEquals(machines, access.asks, "each machine asks once registered");
    }

    private static List<String> names(final List<RegisterMachine> registrations)
    {
        return registrations.stream().map(RegisterMachine::getName).sorted().collect(Collectors.toList());
    }

    /** A market access that records registrations, counts asks and keeps scheduled tasks until asked to run them. */
    private static final class RecordingAccess implements MarketAccess
    {
        final List<RegisterMachine> registrations = new ArrayList<>();
        final List<Runnable> scheduled = new ArrayList<>();
        boolean connected = true;
        int asks;
        long ids;

        void runScheduled()
        {
            final List<Runnable> due = new ArrayList<>(scheduled);
            scheduled.clear();
            due.forEach(Runnable::run);
        }

        @Override
        public long registerMachine(final RegisterMachine machine)
        {
            if (!connected)
            {
                return -1;
            }
            registrations.add(machine);
            return registrations.size();
        }

        @Override
        public long placeAsk(final PlaceAsk ask)
        {
            asks++;
            return ++ids;
        }

        @Override
        public void schedule(final long delayMs, final Runnable task)
        {
            scheduled.add(task);
        }

        @Override
        public void execute(final Runnable task)
        {
            task.run();
        }

        @Override
        public String account()
        {
            return "owner";
        }

        @Override
        public long now()
        {
            return 0;
        }

        @Override
        public long nextOrderId()
        {
            return ++ids;
        }

        @Override
        public void addListener(final ClientListener listener)
        {
        }

        @Override
        public void onRelease(final LongConsumer hook)
        {
        }

        @Override
        public boolean removeListener(final ClientListener listener)
        {
            return true;
        }

        @Override
        public long placeBid(final PlaceBid bid)
        {
            return ++ids;
        }

        @Override
        public long cancel(final long orderId, final boolean reclaim)
        {
            return ++ids;
        }

        @Override
        public long release(final long leaseId)
        {
            return ++ids;
        }

        @Override
        public long replace(final Replace replace)
        {
            return ++ids;
        }

        @Override
        public long machineHeartbeat(final MachineHeartbeat heartbeat)
        {
            return ++ids;
        }

        @Override
        public long subscribe(final String market)
        {
            return ++ids;
        }

        @Override
        public boolean isConnected()
        {
            return connected;
        }
    }
}
