package io.gpux.engine.replay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
        private final List<String> names = new ArrayList<>();

        public long id(final String name)
        {
            Long id = ids.get(name);
            if (id == null)
            {
                names.add(name);
                id = (long)names.size();
                ids.put(name, id);
            }
            return id;
        }

        /** @return the id of a known name, or 0. */
        public long existing(final String name)
        {
            final Long id = ids.get(name);
            return id == null ? 0 : id;
        }

        public String name(final long id)
        {
            return id >= 1 && id <= names.size() ? names.get((int)(id - 1)) : "?" + id;
        }

        public int size()
        {
            return names.size();
        }
    }

    public final Namespace markets = new Namespace();
    public final Namespace accounts = new Namespace();
    public final Namespace machines = new Namespace();
    public final Namespace orders = new Namespace();
    public final Namespace regions = new Namespace();
    public final Namespace interconnects = new Namespace();
    private final Namespace otherLeases = new Namespace();

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
