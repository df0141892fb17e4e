package io.gpux.gateway.offers;

import java.util.function.Consumer;

/**
 * The offer rows of the board by slot (each machine has one, for good): a persistent tree of 64-way
 * nodes that readers walk on any thread once published, and that the core changes by copying only the
 * nodes on the paths of the changed slots, each node at most once between two publications. A change
 * of a few machines so costs the same whatever the number of machines.
 */
final class OfferRows
{
    private static final int BITS = 6;
    private static final int FAN = 1 << BITS;
    private static final int MASK = FAN - 1;

    static final OfferRows EMPTY = new OfferRows(new Object[FAN + 1], 0);

    /** Nodes of FAN children (rows in the leaves) and, last, the editor's token of the copy that made them. */
    private final Object[] root;
    /** The root's shift: the tree holds {@code FAN << shift} slots. */
    private final int shift;

    private OfferRows(final Object[] root, final int shift)
    {
        this.root = root;
        this.shift = shift;
    }

    /** Every row, in slot order. */
    void forEach(final Consumer<OfferRow> action)
    {
        forEach(root, shift, action);
    }

    private static void forEach(final Object[] node, final int shift, final Consumer<OfferRow> action)
    {
        for (int i = 0; i < FAN; i++)
        {
            final Object child = node[i];
            if (child == null)
            {
                continue;
            }
            if (shift == 0)
            {
                action.accept((OfferRow)child);
            }
            else
            {
                forEach((Object[])child, shift - BITS, action);
            }
        }
    }

    /**
     * Changes rows on one thread: nodes made since the last {@link #publish()} are changed in place,
     * published ones are copied first, so that a published tree never changes.
     */
    static final class Editor
    {
        private Object[] root;
        private int shift;
        private Object token = new Object();

        Editor(final OfferRows base)
        {
            root = base.root;
            shift = base.shift;
        }

        /** Sets a slot's row; null: the slot has none. */
        void set(final int slot, final OfferRow row)
        {
            while (Integer.toUnsignedLong(slot) >= (long)FAN << shift)
            {
                final Object[] grown = node();
                grown[0] = root;
                root = grown;
                shift += BITS;
            }
            root = owned(root);
            Object[] node = root;
            for (int s = shift; s > 0; s -= BITS)
            {
                final int i = (slot >>> s) & MASK;
                final Object[] child = node[i] == null ? node() : owned((Object[])node[i]);
                node[i] = child;
                node = child;
            }
            node[slot & MASK] = row;
        }

        /** The tree as it is now, never to change: later sets copy what they change. */
        OfferRows publish()
        {
            token = new Object();
            return new OfferRows(root, shift);
        }

        private Object[] node()
        {
            final Object[] node = new Object[FAN + 1];
            node[FAN] = token;
            return node;
        }

        private Object[] owned(final Object[] node)
        {
            if (node[FAN] == token)
            {
                return node;
            }
            final Object[] copy = node.clone();
            copy[FAN] = token;
            return copy;
        }
    }
}
