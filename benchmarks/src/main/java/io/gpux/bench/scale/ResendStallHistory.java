package io.gpux.bench.scale;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.gateway.Exchange;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The set-up of a {@link ResendStall} run, on the benchmark's main thread: the markets, the probe (a renter
 * facing one huge ask), the fleet (an owner with {@code fleet} machines, each leased by one renter) and the
 * history: {@code events} deposits, account by account in turn, with the quiet accounts' deposits spaced evenly
 * through it. The clients' answers arrive on the load's event loop.
 */
final class ResendStallHistory
{
    static final String PROBE_MARKET = "PROBE";
    static final String FLEET_MARKET = "FLEET";
    static final long PRICE = 10_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final int accounts;
    private final int events;
    private final int quiet;
    private final int quietEvents;
    private final int resenders;
    private final int fleet;

    /** API keys made during set-up: {keyId, secret} each. */
    record Keys(String[] probe, String[] fleetOwner, String[] fleetRenter, List<String[]> resend)
    {
    }

    ResendStallHistory(final int accounts, final int events, final int quiet, final int quietEvents, final int resenders,
        final int fleet)
    {
        this.accounts = accounts;
        this.events = events;
        this.quiet = quiet;
        this.quietEvents = quietEvents;
        this.resenders = resenders;
        this.fleet = fleet;
    }

    static ClientContext context(final Exchange exchange, final String[] key, final EventLoopGroup loops)
    {
        return new ClientContext().host("127.0.0.1").port(exchange.port()).keyId(Long.parseLong(key[0]))
            .secretHex(key[1]).eventLoopGroup(loops).socketChannelClass(NioSocketChannel.class);
    }

    private static Response check(final Response r)
    {
        if (r.getReason() != Reason.REASON_OK)
        {
            throw new IllegalStateException("set-up failed: " + r.getReason() + " " + r.getMessage());
        }
        return r;
    }

    private static String[] account(final GpuxClient admin, final String name, final long deposit, final Role... roles)
        throws Exception
    {
        final CreateAccount.Builder create = CreateAccount.newBuilder().setName(name);
        for (final Role role : roles)
        {
            create.addRoles(role);
        }
        check(admin.call(Envelope.newBuilder().setCreateAccount(create), TIMEOUT));
        if (deposit > 0)
        {
            check(admin.call(Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(name).setAmount(deposit)), TIMEOUT));
        }
        final Response key = check(admin.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)), TIMEOUT));
        return new String[] {Long.toString(key.getAssignedId()), key.getSecret()};
    }

    /** Counts the answers to a stream of admin commands, for a window of them in flight. */
    private static final class Answers implements ClientListener
    {
        final AtomicLong answered = new AtomicLong();
        volatile String firstError;

        @Override
        public void onResponse(final long requestId, final Response response)
        {
            if (response.getReason() != Reason.REASON_OK && firstError == null)
            {
                firstError = response.getReason() + " " + response.getMessage();
            }
            answered.incrementAndGet();
        }
    }

    /** Sets the exchange up and writes the history; returns the keys the measurement logs in with. */
    Keys setUp(final Exchange exchange, final EventLoopGroup loops) throws Exception
    {
        final Exchange.Key adminKey = exchange.bootstrapKey();
        final Answers answers = new Answers();
        try (GpuxClient admin = new GpuxClient(context(exchange,
            new String[] {Long.toString(adminKey.keyId()), adminKey.secret()}, loops).listener(answers)))
        {
            admin.connect();
            check(admin.call(Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)), TIMEOUT));
            for (final String market : new String[] {PROBE_MARKET, FLEET_MARKET})
            {
                check(admin.call(Envelope.newBuilder().setCreateMarket(CreateMarket.newBuilder().setSymbol(market)
                    .setPreemption(false).setMaxGpusPerOrder(1_000_000)), TIMEOUT));
            }
            final String[] probe = account(admin, "probe", 1_000_000_000_000_000L, Role.RENTER);
            final String[] bigOwner = account(admin, "big-owner", 0, Role.OWNER);
            final String[] fleetOwner = account(admin, "fleet-owner", 0, Role.OWNER);
            final String[] fleetRenter = account(admin, "fleet-renter", 1_000_000_000_000_000L, Role.RENTER);
            probeAsk(exchange, loops, bigOwner);
            leaseFleet(exchange, loops, fleetOwner, fleetRenter);
            final String[] names = createAccounts(admin, answers);
            final List<String[]> resend = resendKeys(admin, names);
            deposit(admin, answers, names);
            return new Keys(probe, fleetOwner, fleetRenter, resend);
        }
    }

    /** The one huge ask the probe's bids fill against. */
    private static void probeAsk(final Exchange exchange, final EventLoopGroup loops, final String[] bigOwner) throws Exception
    {
        try (GpuxClient owner = new GpuxClient(context(exchange, bigOwner, loops)))
        {
            owner.connect();
            final long machine = check(owner.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine
                .newBuilder().setName("big").setMarket(PROBE_MARKET).setGpus(1_000_000)), TIMEOUT)).getAssignedId();
            check(owner.call(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder()
                .setMachineId(machine)), TIMEOUT));
            check(owner.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1)
                .setMachineId(machine).setGpus(1_000_000).setPrice(PRICE)), TIMEOUT));
        }
    }

    /** The fleet: {@code fleet} one-GPU machines, each leased by the fleet's renter. */
    private void leaseFleet(final Exchange exchange, final EventLoopGroup loops, final String[] fleetOwner,
        final String[] fleetRenter) throws Exception
    {
        try (GpuxClient owner = new GpuxClient(context(exchange, fleetOwner, loops));
             GpuxClient renter = new GpuxClient(context(exchange, fleetRenter, loops)))
        {
            owner.connect();
            renter.connect();
            for (int m = 0; m < fleet; m++)
            {
                final long machine = check(owner.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine
                    .newBuilder().setName("fleet-" + m).setMarket(FLEET_MARKET).setGpus(1)), TIMEOUT)).getAssignedId();
                check(owner.call(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder()
                    .setMachineId(machine)), TIMEOUT));
                check(owner.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(m + 1)
                    .setMachineId(machine).setGpus(1).setPrice(PRICE)), TIMEOUT));
                check(renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(m + 1)
                    .setMarket(FLEET_MARKET).setGpus(1).setPrice(PRICE).setTif(TimeInForce.IOC)), TIMEOUT));
            }
        }
    }

    /** The history's accounts, the quiet ones first; at most 5,000 unanswered at a time. */
    private String[] createAccounts(final GpuxClient admin, final Answers answers) throws Exception
    {
        final String[] names = new String[accounts];
        final long answeredBefore = answers.answered.get();
        for (int a = 0; a < accounts; a++)
        {
            names[a] = (a < quiet ? "quiet-" : "busy-") + a;
            while (a - (answers.answered.get() - answeredBefore) > 5_000)
            {
                LockSupport.parkNanos(50_000);
            }
            admin.send(Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder().setName(names[a])
                .addRoles(Role.RENTER)));
        }
        awaitAnswers(answers, answeredBefore, accounts, "account");
        return names;
    }

    /** The resenders' keys: the even ones on quiet accounts, the odd ones on busy accounts. */
    private List<String[]> resendKeys(final GpuxClient admin, final String[] names) throws Exception
    {
        final List<String[]> resend = new ArrayList<>();
        for (int r = 0; r < resenders; r++)
        {
            final String name = r % 2 == 0 ? names[r / 2 % quiet] : names[quiet + r];
            final Response key = check(admin.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder()
                .setAccount(name)), TIMEOUT));
            resend.add(new String[] {Long.toString(key.getAssignedId()), key.getSecret()});
        }
        return resend;
    }

    /** The history itself: {@code events} deposits, the quiet accounts' spaced evenly through it. */
    private void deposit(final GpuxClient admin, final Answers answers, final String[] names) throws Exception
    {
        final long quietEvery = Math.max(1, events / Math.max(1, (long)quiet * quietEvents));
        final long sentBefore = answers.answered.get();
        int busy = 0;
        int nextQuiet = 0;
        for (long i = 0; i < events; i++)
        {
            final String to;
            if (i % quietEvery == 0)
            {
                to = names[nextQuiet];
                nextQuiet = (nextQuiet + 1) % quiet;
            }
            else
            {
                to = names[quiet + busy];
                busy = (busy + 1) % (accounts - quiet);
            }
            while (i - (answers.answered.get() - sentBefore) > 5_000)
            {
                LockSupport.parkNanos(50_000);
            }
            admin.send(Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(to).setAmount(1)));
        }
        awaitAnswers(answers, sentBefore, events, "deposit");
    }

    private static void awaitAnswers(final Answers answers, final long before, final long count, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (answers.answered.get() - before < count)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("the history's " + what + " commands were not all answered in 120 s");
            }
            Thread.sleep(5);
        }
        if (answers.firstError != null)
        {
            throw new IllegalStateException("a " + what + " command of the set-up was refused: " + answers.firstError);
        }
    }
}
