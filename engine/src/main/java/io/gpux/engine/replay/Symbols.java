package io.gpux.engine.replay;

import java.util.HashMap;
import java.util.Map;

/**
 * The names of a scenario (or of a gateway's clients) and the numeric ids the engine knows them by:
 * one namespace per kind, ids from 1 in order of first appearance. Lease ids are the engine's own
 * ({@code L<n>}); a lease name of any other form gets a negative id that no lease has.
 */
public final class Symbols
{
    /** One namespace of names. */
    public static final class Namespace
    {
        private final Map<String, Long> ids = new HashMap<>();
        private final org.agrona.collections.Long2ObjectHashMap<String> names = new org.agrona.collections.Long2ObjectHashMap<>();
        private final String fallbackPrefix;
        private long nextId = 1;

        Namespace(final String fallbackPrefix)
        {
            this.fallbackPrefix = fallbackPrefix;
        }

        /** The id of a name, given the next free id on first sight. */
        public long id(final String name)
        {
            Long id = ids.get(name);
            if (id == null)
            {
                while (names.containsKey(nextId))
                {
                    nextId++;
                }
                id = nextId++;
                ids.put(name, id);
                names.put(id, name);
            }
            return id;
        }

        /** Names an id explicitly (e.g. from a journaled registration). */
        public void define(final long id, final String name)
        {
            ids.put(name, id);
            names.put(id, name);
        }

        /** @return the id of a known name, or 0. */
        public long existing(final String name)
        {
            final Long id = ids.get(name);
            return id == null ? 0 : id;
        }

        /** The name of an id; an id never named prints as the fallback prefix and the number. */
        public String name(final long id)
        {
            final String name = names.get(id);
            return name != null ? name : fallbackPrefix + id;
        }

        public int size()
        {
            return names.size();
        }
    }

    public final Namespace markets = new Namespace("market-");
    public final Namespace accounts = new Namespace("account-");
    public final Namespace machines = new Namespace("machine-");
    public final Namespace orders = new Namespace("");
    public final Namespace regions = new Namespace("region-");
    public final Namespace interconnects = new Namespace("interconnect-");
    private final Namespace otherLeases = new Namespace("lease-");

    public long leaseId(final String name)
    {
        if (name.length() >= 2 && name.length() <= 19 && name.charAt(0) == 'L' && name.charAt(1) != '0')
        {
            long id = 0;
            boolean digits = true;
            for (int i = 1; i < name.length() && digits; i++)
            {
                final char c = name.charAt(i);
                digits = c >= '0' && c <= '9';
                id = id * 10 + (c - '0');
            }
            if (digits && id > 0)
            {
                return id;
            }
        }
        return -otherLeases.id(name);
    }

    public String leaseName(final long id)
    {
        return id > 0 ? "L" + id : otherLeases.name(-id);
    }
}
