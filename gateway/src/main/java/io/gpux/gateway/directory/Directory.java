package io.gpux.gateway.directory;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.funds.Account;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's map between the names users speak (market symbols, account names, machine names,
 * region names) and the numeric ids the engine works with. Filled from the engine's state once it
 * has recovered, then kept up to date as the gateway registers new ones. Read from any thread.
 *
 * <p>Ids of markets, accounts, machines and keys are assigned here, in order, from one past the
 * highest id the engine holds; they are journaled with the registration commands, so a restart
 * finds them in the engine's state again. Region and interconnect ids are a stable hash of their
 * name (the engine keeps only the id, so the mapping must survive a restart without being stored).
 */
public final class Directory
{
    /** A market as the gateway knows it. */
    public record MarketEntry(long id, String symbol)
    {
    }

    /** An account as the gateway knows it. */
    public record AccountEntry(long id, String name, int roles)
    {
    }

    /** A machine as the gateway knows it. */
    public record MachineEntry(long id, String name, long ownerId, long marketId)
    {
    }

    private final ConcurrentHashMap<String, MarketEntry> marketsBySymbol = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, MarketEntry> marketsById = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AccountEntry> accountsByName = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, AccountEntry> accountsById = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, MachineEntry> machinesByName = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, MachineEntry> machinesById = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> keys = new ConcurrentHashMap<>();
    /** Region and interconnect names by id; {@link #UNNAMED} for an id the engine holds whose name is not known. */
    private final ConcurrentHashMap<Long, String> names = new ConcurrentHashMap<>();
    private static final String UNNAMED = "?";
    private final AtomicLong nextMarketId = new AtomicLong(1);
    private final AtomicLong nextAccountId = new AtomicLong(1);
    private final AtomicLong nextMachineId = new AtomicLong(1);
    private final AtomicLong nextKeyId = new AtomicLong(1);

    /** Loads everything from a recovered engine. Call on the core thread (EventPublisher.onRecovered). */
    public void load(final MatchingEngine engine)
    {
        for (final Market m : engine.markets())
        {
            putMarket(m.id, m.name);
        }
        for (final Account a : engine.accounts())
        {
            putAccount(a.id, a.name, a.roles);
        }
        for (final Machine m : engine.machines())
        {
            final String name = m.name.substring(m.name.indexOf('/') + 1);
            putMachine(m.id, name, m.owner.id, m.market.id);
            unnamed(m.regionId);
            unnamed(m.interconnectId);
        }
        engine.forEachKey((keyId, accountId) -> keys.put(keyId, accountId));
        raise(nextKeyId, engine.maxKeyId());
    }

    private static void raise(final AtomicLong next, final long used)
    {
        next.accumulateAndGet(used + 1, Math::max);
    }

    // ---- markets

    public MarketEntry market(final String symbol)
    {
        return symbol == null ? null : marketsBySymbol.get(symbol);
    }

    public MarketEntry market(final long id)
    {
        return marketsById.get(id);
    }

    public String marketSymbol(final long id)
    {
        final MarketEntry m = marketsById.get(id);
        return m == null ? "" : m.symbol;
    }

    public List<MarketEntry> markets()
    {
        final List<MarketEntry> all = new ArrayList<>(marketsById.values());
        all.sort(Comparator.comparingLong(MarketEntry::id));
        return all;
    }

    /** Reserves an id for a new market, or null if the symbol is taken. */
    public MarketEntry newMarket(final String symbol)
    {
        final long id = nextMarketId.get();
        final MarketEntry entry = new MarketEntry(id, symbol);
        if (marketsBySymbol.putIfAbsent(symbol, entry) != null)
        {
            return null;
        }
        nextMarketId.incrementAndGet();
        marketsById.put(id, entry);
        return entry;
    }

    private void putMarket(final long id, final String symbol)
    {
        final MarketEntry entry = new MarketEntry(id, symbol);
        marketsBySymbol.put(symbol, entry);
        marketsById.put(id, entry);
        raise(nextMarketId, id);
    }

    public void forgetMarket(final long id)
    {
        final MarketEntry m = marketsById.remove(id);
        if (m != null)
        {
            marketsBySymbol.remove(m.symbol, m);
        }
    }

    // ---- accounts

    public AccountEntry account(final String name)
    {
        return name == null ? null : accountsByName.get(name);
    }

    public AccountEntry account(final long id)
    {
        return accountsById.get(id);
    }

    public Collection<AccountEntry> accounts()
    {
        return accountsById.values();
    }

    /** Reserves an id for a new account, or null if the name is taken. */
    public synchronized AccountEntry newAccount(final String name, final int roles)
    {
        if (accountsByName.containsKey(name))
        {
            return null;
        }
        final AccountEntry entry = new AccountEntry(nextAccountId.getAndIncrement(), name, roles);
        accountsByName.put(name, entry);
        accountsById.put(entry.id, entry);
        return entry;
    }

    private void putAccount(final long id, final String name, final int roles)
    {
        final AccountEntry entry = new AccountEntry(id, name, roles);
        accountsByName.put(name, entry);
        accountsById.put(id, entry);
        raise(nextAccountId, id);
    }

    public void forgetAccount(final long id)
    {
        final AccountEntry a = accountsById.remove(id);
        if (a != null)
        {
            accountsByName.remove(a.name, a);
        }
    }

    // ---- machines: names are the owner's, unique per owner; the engine's name is "owner/name"

    public static String engineMachineName(final String ownerName, final String name)
    {
        return ownerName + "/" + name;
    }

    public MachineEntry machine(final long id)
    {
        return machinesById.get(id);
    }

    public MachineEntry machine(final long ownerId, final String name)
    {
        return machinesByName.get(ownerId + "/" + name);
    }

    /** The machine registered under this owner and name, or a new one with a fresh id (see {@link MachineEntry}). */
    public synchronized MachineEntry machineFor(final long ownerId, final String name, final long marketId, final boolean[] created)
    {
        final MachineEntry existing = machinesByName.get(ownerId + "/" + name);
        if (existing != null)
        {
            created[0] = false;
            return existing;
        }
        final MachineEntry entry = new MachineEntry(nextMachineId.getAndIncrement(), name, ownerId, marketId);
        machinesByName.put(ownerId + "/" + name, entry);
        machinesById.put(entry.id, entry);
        created[0] = true;
        return entry;
    }

    private void putMachine(final long id, final String name, final long ownerId, final long marketId)
    {
        final MachineEntry entry = new MachineEntry(id, name, ownerId, marketId);
        machinesByName.put(ownerId + "/" + name, entry);
        machinesById.put(id, entry);
        raise(nextMachineId, id);
    }

    public void forgetMachine(final long id)
    {
        final MachineEntry m = machinesById.remove(id);
        if (m != null)
        {
            machinesByName.remove(m.ownerId + "/" + m.name, m);
        }
    }

    // ---- keys

    /** The account a live key belongs to, or 0. */
    public long keyAccount(final long keyId)
    {
        final Long account = keys.get(keyId);
        return account == null || account <= 0 ? 0 : account;
    }

    public long newKeyId()
    {
        return nextKeyId.getAndIncrement();
    }

    public void keyAdded(final long keyId, final long accountId)
    {
        keys.put(keyId, accountId);
        raise(nextKeyId, keyId);
    }

    public void keyRevoked(final long keyId)
    {
        keys.computeIfPresent(keyId, (k, a) -> -Math.abs(a));
    }

    public boolean hasKeys()
    {
        return !keys.isEmpty();
    }

    // ---- regions and interconnects

    /**
     * Remembers a region or interconnect name that a machine is registered with, so that its id reads as
     * the name. A registration again (of a machine the engine already holds) can only name an id that
     * some machine has, so the names stay as few as the machines' ids.
     */
    public void rememberName(final String name, final boolean newMachine)
    {
        if (name == null || name.isEmpty())
        {
            return;
        }
        if (newMachine)
        {
            names.put(nameId(name), name);
        }
        else
        {
            names.replace(nameId(name), UNNAMED, name);
        }
    }

    private void unnamed(final long id)
    {
        if (id != 0)
        {
            names.putIfAbsent(id, UNNAMED);
        }
    }

    /**
     * The region or interconnect name of an id: empty for 0, {@code "?"} for a name no machine has been
     * registered with since the gateway started (the engine keeps only the id).
     */
    public String nameOf(final long id)
    {
        return id == 0 ? "" : names.getOrDefault(id, UNNAMED);
    }

    /** A stable, positive id for a region or interconnect name (0 for none): 63 bits of FNV-1a. */
    public static long nameId(final String name)
    {
        if (name == null || name.isEmpty())
        {
            return 0;
        }
        long h = 0xcbf29ce484222325L;
        for (final byte b : name.getBytes(StandardCharsets.UTF_8))
        {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h &= Long.MAX_VALUE;
        return h == 0 ? 1 : h;
    }
}
