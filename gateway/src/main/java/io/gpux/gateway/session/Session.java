package io.gpux.gateway.session;

import io.gpux.engine.command.Roles;
import io.netty.channel.Channel;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One logged-in connection. Its inbound side (requests, rate limit, the pending-request table) is
 * touched only by the connection's event loop; its outbound side (account events, answers) only by
 * the egress thread. A request's slot in the table is written before the command is published, and
 * read by the egress after the command's completion, which the input ring and the egress queue order.
 *
 * <p>The pending-request table starts small ({@link #INITIAL_PENDING} slots) and doubles when a
 * request finds it full, up to {@link #MAX_PENDING}: an idle session costs a few hundred bytes, not
 * the table's largest size. Requests complete in the order they were published (one input ring, one
 * engine), so the requests in flight are always the newest {@code outstanding} slots; growing copies
 * them into the larger table, and the old table is left as it was, so the egress may still read a
 * request from either.
 */
public final class Session
{
    /** Requests a session may have in flight; a request beyond it is answered BUSY. */
    public static final int MAX_PENDING = 1 << 14;
    /** The pending-request table's size at login. */
    public static final int INITIAL_PENDING = 16;
    private static final int MASK = MAX_PENDING - 1;

    /** What a pending request was, for what its answer needs. */
    public static final byte KIND_COMMAND = 0;
    public static final byte KIND_NEW_ACCOUNT = 1;
    public static final byte KIND_NEW_MARKET = 2;
    public static final byte KIND_NEW_MACHINE = 3;
    public static final byte KIND_NEW_KEY = 4;
    public static final byte KIND_REVOKE_KEY = 5;

    /** The account id of a market-data session: no account has it. */
    public static final long MARKET_DATA_ACCOUNT = 0;

    public final long id;
    public final Channel channel;
    public final long accountId;
    public final String accountName;
    public final int roles;
    public final boolean cancelOnDisconnect;
    /** The key the session logged in with. */
    public final long keyId;

    /** The pending-request table; replaced (never changed in place once replaced) when it grows. */
    private volatile Pending pending = new Pending(INITIAL_PENDING);
    private final AtomicInteger outstanding = new AtomicInteger();
    private long nextSlot;
    /**
     * Its key was revoked: nothing more it sends is published (set on the event loop, read there and
     * by the egress, which then closes it).
     */
    private volatile boolean revoked;

    /** Egress side: whether the account's events now go to this session (after any resend). */
    public boolean live;
    public boolean closed;
    /**
     * Set by the egress before it closes a connection whose login it refused (too many resends): the
     * session never began, so its end cancels nothing (read by the event loop after the close).
     */
    public volatile boolean refused;

    public Session(
        final long id, final Channel channel, final long accountId, final String accountName, final int roles,
        final boolean cancelOnDisconnect, final long keyId)
    {
        this.id = id;
        this.channel = channel;
        this.accountId = accountId;
        this.accountName = accountName;
        this.roles = roles;
        this.cancelOnDisconnect = cancelOnDisconnect;
        this.keyId = keyId;
    }

    /** A market-data login (Login key_id 0): no account, no key; it may only read public market data. */
    public boolean marketDataOnly()
    {
        return accountId == MARKET_DATA_ACCOUNT;
    }

    public boolean isAdmin()
    {
        return (roles & Roles.ADMIN) != 0;
    }

    /** Its key was revoked: the session may publish nothing more and is about to be closed. */
    public boolean revoked()
    {
        return revoked;
    }

    void revoke()
    {
        revoked = true;
    }

    void restore()
    {
        revoked = false;
    }

    /**
     * Takes a pending-request slot (event loop only).
     *
     * @return the correlation to publish the command with, or 0 when too many are in flight.
     */
    public long track(final long requestId, final byte kind, final long assignedId)
    {
        final int inFlight = outstanding.get();
        if (inFlight >= MAX_PENDING)
        {
            return 0;
        }
        Pending table = pending;
        if (inFlight >= table.requestIds.length)
        {
            table = grow(table, inFlight);
        }
        final long slot = nextSlot++;
        final int i = (int)(slot & table.mask);
        table.requestIds[i] = requestId;
        table.kinds[i] = kind;
        table.assignedIds[i] = assignedId;
        table.receivedNs[i] = 0;
        outstanding.incrementAndGet();
        return correlation(id, (int)(slot & MASK));
    }

    /** Doubles the table, copying the requests in flight (the newest {@code inFlight} slots) to their new places. */
    private Pending grow(final Pending old, final int inFlight)
    {
        final Pending grown = new Pending(old.requestIds.length * 2);
        for (long slot = nextSlot - inFlight; slot < nextSlot; slot++)
        {
            final int from = (int)(slot & old.mask);
            final int to = (int)(slot & grown.mask);
            grown.requestIds[to] = old.requestIds[from];
            grown.kinds[to] = old.kinds[from];
            grown.assignedIds[to] = old.assignedIds[from];
            grown.receivedNs[to] = old.receivedNs[from];
        }
        pending = grown;
        return grown;
    }

    /** The size of the pending-request table now (it grows with the requests in flight). */
    public int pendingCapacity()
    {
        return pending.requestIds.length;
    }

    /** Gives back a slot whose command could not be published (event loop only). */
    public void untrack()
    {
        nextSlot--;
        outstanding.decrementAndGet();
    }

    public static long correlation(final long sessionId, final int slot)
    {
        return sessionId << 16 | slot;
    }

    public static long sessionOf(final long correlation)
    {
        return correlation >>> 16;
    }

    public static int slotOf(final long correlation)
    {
        return (int)(correlation & MASK);
    }

    public long requestId(final int slot)
    {
        final Pending table = pending;
        return table.requestIds[slot & table.mask];
    }

    public byte kind(final int slot)
    {
        final Pending table = pending;
        return table.kinds[slot & table.mask];
    }

    public long assignedId(final int slot)
    {
        final Pending table = pending;
        return table.assignedIds[slot & table.mask];
    }

    /**
     * Marks the request just tracked as timed: when the gateway had it (a clock reading), so that the egress
     * can time its answer (event loop only, before the command is published).
     */
    public void timeLastTracked(final long receivedNs)
    {
        final Pending table = pending;
        table.receivedNs[(int)((nextSlot - 1) & table.mask)] = receivedNs;
    }

    /** When the gateway had the request of this slot, if it is timed; else 0. */
    public long receivedNs(final int slot)
    {
        final Pending table = pending;
        return table.receivedNs[slot & table.mask];
    }

    /** The egress has answered a request: its slot may be taken again (so read it before). */
    public void completed()
    {
        outstanding.decrementAndGet();
    }

    @Override
    public String toString()
    {
        return "session " + id + " (" + accountName + ", key " + keyId + ", " + channel.remoteAddress() + ")";
    }

    /** A pending-request table of a power-of-two size. */
    private static final class Pending
    {
        final long[] requestIds;
        final byte[] kinds;
        final long[] assignedIds;
        final long[] receivedNs;
        final int mask;

        Pending(final int size)
        {
            requestIds = new long[size];
            kinds = new byte[size];
            assignedIds = new long[size];
            receivedNs = new long[size];
            mask = size - 1;
        }
    }
}
