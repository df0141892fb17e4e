package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Fill;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** The client's event loop over real sockets: a spot request on its events, a bot on a spinning loop, many clients on one loop. */
class GpuxClientEventLoopTest extends GpuxClientSocketHarness
{
    @Test
    void spotRequestRunsOnTheClientsEvents() throws Exception
    {
        gateway.fillBids = true;
        final List<String> heard = new CopyOnWriteArrayList<>();
        try (GpuxClient client = new GpuxClient(context(new Recorder())))
        {
            client.connect();
            final SpotRequest spot = SpotRequest.start(client, "M", 4, 30_000, SpotRequest.Constraints.NONE,
                new SpotRequest.Listener()
                {
                    @Override
                    public void onLeaseStarted(final long leaseId, final long machineId, final int gpus, final long price)
                    {
                        heard.add("started L" + leaseId + " x" + gpus);
                    }

                    @Override
                    public void onLeaseEnded(final long leaseId, final EndReason reason)
                    {
                        heard.add("ended L" + leaseId + " " + reason);
                    }
                });
            assertEquals(2, client.listenerCount());
            await("the lease", () -> heard.contains("started L1 x4"));
            spot.close(true);
            await("the release", () -> heard.contains("ended L1 RELEASED"));
            await("the request to stop listening", () -> client.listenerCount() == 1);
            // every command sent is answered, so a re-bid sent at the release would have reached the gateway by now
            await("the release answered", () -> client.unansweredCommands() == 0);
            assertEquals(1, gateway.received(Envelope.BodyCase.PLACE_BID), "nothing re-bid after close");
        }
    }

    @Test
    void aBotOnASpinningLoopSendsFromItsDutyAndHearsItsFillsOnTheSameThread() throws Exception
    {
        gateway.fillBids = true;
        final AtomicReference<GpuxClient> bot = new AtomicReference<>();
        final AtomicLong turns = new AtomicLong();
        final AtomicReference<Thread> dutyThread = new AtomicReference<>();
        final List<Long> sent = new CopyOnWriteArrayList<>();
        final IntSupplier duty = () ->
        {
            turns.incrementAndGet();
            dutyThread.compareAndSet(null, Thread.currentThread());
            final GpuxClient c = bot.get();
            if (c == null || !c.isConnected() || sent.size() == 3)
            {
                return 0;
            }
            // the bot's own logic, on the loop: the bid goes straight to the socket
            sent.add(c.placeBid(c.nextOrderId(), "M", 1, 20_000));
            return 1;
        };
        final EventLoopGroup spinning = new MultiThreadIoEventLoopGroup(1,
            new SpinningLoop(NioIoHandler.newFactory(), duty));
        final List<Thread> fillThreads = new CopyOnWriteArrayList<>();
        final Recorder recorder = new Recorder()
        {
            @Override
            public void onFill(final AccountEvent event, final Fill fill)
            {
                fillThreads.add(Thread.currentThread());
            }
        };
        try (GpuxClient client = new GpuxClient(context(recorder).eventLoopGroup(spinning)))
        {
            client.connect();
            bot.set(client);
            await("three fills", () -> fillThreads.size() == 3);
            await("three answers", () -> sent.stream().allMatch(recorder.responses::containsKey));
            assertEquals(3, gateway.received(Envelope.BodyCase.PLACE_BID));
            assertTrue(fillThreads.stream().allMatch(t -> t == dutyThread.get()), "fills heard on the duty's thread");
            // nothing more to read or send: the loop keeps turning (and calling the duty) all the same
            final long before = turns.get();
            await("the loop turning without I/O", () -> turns.get() - before > 1000);
        }
        finally
        {
            spinning.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void sharedLoopCarriesManyClients() throws Exception
    {
        final List<GpuxClient> clients = new ArrayList<>();
        final List<Recorder> recorders = new ArrayList<>();
        try
        {
            for (int i = 0; i < 20; i++)
            {
                final Recorder recorder = new Recorder();
                recorders.add(recorder);
                clients.add(new GpuxClient(context(recorder).clientName("client-" + i)));
            }
            for (final GpuxClient client : clients)
            {
                client.connect();
            }
            final long[] requests = new long[clients.size()];
            for (int i = 0; i < clients.size(); i++)
            {
                requests[i] = clients.get(i).placeBid(clients.get(i).nextOrderId(), "M", 1, 10_000);
            }
            for (int i = 0; i < clients.size(); i++)
            {
                final Recorder recorder = recorders.get(i);
                final long request = requests[i];
                await("client " + i, () -> recorder.responses.containsKey(request));
            }
        }
        finally
        {
            clients.forEach(GpuxClient::close);
        }
    }
}
