package io.gpux.sim.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import org.knowm.xchart.internal.chartpart.Annotation;

/** A shaded band across the plot between two x values, with its label at the top: the exchange's outage. */
final class OutageBand extends Annotation
{
    static final Color FILL = new Color(0x99, 0x99, 0x99, 70);
    private static final Color EDGE = new Color(0x55, 0x55, 0x55);
    private final double fromX;
    private final double toX;
    private final String label;

    OutageBand(final double fromX, final double toX, final String label)
    {
        super(false);
        this.fromX = fromX;
        this.toX = toX;
        this.label = label;
    }

    String label()
    {
        return label;
    }

    @Override
    public void paint(final Graphics2D g)
    {
        if (!isVisible)
        {
            return;
        }
        final int left = getXAxisScreenValueForMin();
        final int right = getXAxisScreenValueForMax();
        final int x1 = Math.max(left, Math.min(right, getXAxisScreenValue(fromX)));
        final int x2 = Math.max(left, Math.min(right, Math.max(getXAxisScreenValue(toX), x1 + 2)));
        final int top = Math.min(getYAxisScreenValueForMax(), getYAxisScreenValueForMin());
        final int bottom = Math.max(getYAxisScreenValueForMax(), getYAxisScreenValueForMin());
        g.setColor(FILL);
        g.fillRect(x1, top, x2 - x1, bottom - top);
        g.setColor(EDGE);
        g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f));
        g.drawLine(x1, top, x1, bottom);
        g.drawLine(x2, top, x2, bottom);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 11));
        final int w = g.getFontMetrics().stringWidth(label);
        final int tx = x2 + 3 + w <= right ? x2 + 3 : Math.max(left + 2, x1 - 3 - w);
        g.drawString(label, tx, top + 13);
        bounds = new Rectangle2D.Double(x1, top, x2 - x1, bottom - top);
    }
}
