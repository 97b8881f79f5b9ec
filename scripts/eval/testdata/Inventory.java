package shop.inventory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Inventory keeps the stock level of every SKU in one warehouse and the
 * holds placed on it by carts that are being checked out. Counts are
 * whole units; a SKU that was never received has a stock of zero.
 */
public class Inventory {
    /** Units on the shelf, by SKU. */
    private final Map<String, Integer> stock = new ConcurrentHashMap<>();

    /** Units held for carts in checkout, by SKU. */
    private final Map<String, Integer> held = new ConcurrentHashMap<>();

    /** When each cart's hold lapses, by cart id. */
    private final Map<String, Instant> holdExpiry = new ConcurrentHashMap<>();

    /** What each cart holds, by cart id then SKU. */
    private final Map<String, Map<String, Integer>> holdsByCart = new ConcurrentHashMap<>();

    /** How long a hold lasts before the units return to sale. */
    private final Duration holdTimeout;

    /** The clock holds are timed with; a fixed clock in tests. */
    private final Clock clock;

    /** Below this many free units a SKU is reported for reordering. */
    private int reorderThreshold = 5;

    public Inventory(Duration holdTimeout, Clock clock) {
        this.holdTimeout = holdTimeout;
        this.clock = clock;
    }

    /**
     * Records units received from a supplier: they go on the shelf and are
     * free to sell at once.
     */
    public synchronized void receive(String sku, int units) {
        if (units <= 0) {
            throw new IllegalArgumentException("units must be positive: " + units);
        }
        stock.merge(sku, units, Integer::sum);
    }

    /**
     * Loads counts from a stocktake export: one "sku,units" line per SKU,
     * a header line first, blank lines and lines starting with # ignored.
     * Counts replace what the shelf held; holds are kept as they are, so a
     * SKU may end with more units held than counted, which available()
     * reports as zero free units until the holds lapse or are paid.
     * Returns the number of SKUs loaded; a malformed line stops the load
     * with its line number, leaving the counts of the lines before it.
     */
    public synchronized int importCounts(String csv) {
        int loaded = 0;
        int lineNo = 0;
        for (String line : csv.split("\\R")) {
            lineNo++;
            if (lineNo == 1) {
                continue; // the header
            }
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] parts = trimmed.split(",");
            if (parts.length != 2) {
                throw new IllegalArgumentException("line " + lineNo + ": want sku,units, got " + trimmed);
            }
            String sku = parts[0].strip();
            int units;
            try {
                units = Integer.parseInt(parts[1].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + lineNo + ": units " + parts[1] + " is not a number", e);
            }
            if (units < 0) {
                throw new IllegalArgumentException("line " + lineNo + ": negative count " + units);
            }
            stock.put(sku, units);
            loaded++;
        }
        return loaded;
    }

    /**
     * Places a soft hold on qty units of sku for a cart in checkout: the
     * units stay on the shelf but no other cart can take them until the
     * hold lapses or the order is paid. Returns false, holding nothing,
     * when fewer than qty units are free.
     */
    public synchronized boolean reserveStock(String cartId, String sku, int qty) {
        expireHolds();
        int free = stock.getOrDefault(sku, 0) - held.getOrDefault(sku, 0);
        if (qty <= 0 || free < qty) {
            return false;
        }
        held.merge(sku, qty, Integer::sum);
        holdsByCart.computeIfAbsent(cartId, k -> new HashMap<>()).merge(sku, qty, Integer::sum);
        holdExpiry.put(cartId, clock.instant().plus(holdTimeout));
        return true;
    }

    /**
     * Writes a plain-text stock report, one SKU per line in name order:
     * the units on the shelf, the units held for carts, the free units,
     * and a REORDER mark for SKUs below the threshold. The report is for
     * people; the warehouse dashboard reads available() instead.
     */
    public synchronized String report() {
        expireHolds();
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-16s %8s %8s %8s%n", "sku", "shelf", "held", "free"));
        stock.keySet().stream().sorted().forEach(sku -> {
            int shelf = stock.getOrDefault(sku, 0);
            int onHold = held.getOrDefault(sku, 0);
            int free = shelf - onHold;
            out.append(String.format("%-16s %8d %8d %8d", sku, shelf, onHold, free));
            if (free < reorderThreshold) {
                out.append("  REORDER");
            }
            out.append(System.lineSeparator());
        });
        int totalShelf = stock.values().stream().mapToInt(Integer::intValue).sum();
        int totalHeld = held.values().stream().mapToInt(Integer::intValue).sum();
        out.append(String.format("%-16s %8d %8d %8d%n", "total", totalShelf, totalHeld, totalShelf - totalHeld));
        out.append("carts holding stock: ").append(holdsByCart.size()).append(System.lineSeparator());
        return out.toString();
    }

    /**
     * Turns a cart's holds into a sale: the held units leave the shelf.
     */
    public synchronized void commit(String cartId) {
        Map<String, Integer> holds = holdsByCart.remove(cartId);
        holdExpiry.remove(cartId);
        if (holds == null) {
            return;
        }
        for (Map.Entry<String, Integer> e : holds.entrySet()) {
            held.merge(e.getKey(), -e.getValue(), Integer::sum);
            stock.merge(e.getKey(), -e.getValue(), Integer::sum);
        }
    }

    /**
     * Gives a cart's held units back to sale, as when the customer leaves.
     */
    public synchronized void release(String cartId) {
        Map<String, Integer> holds = holdsByCart.remove(cartId);
        holdExpiry.remove(cartId);
        if (holds == null) {
            return;
        }
        for (Map.Entry<String, Integer> e : holds.entrySet()) {
            held.merge(e.getKey(), -e.getValue(), Integer::sum);
        }
    }

    /** Releases every hold whose time has passed. */
    private void expireHolds() {
        Instant now = clock.instant();
        holdExpiry.entrySet().removeIf(e -> {
            if (e.getValue().isAfter(now)) {
                return false;
            }
            Map<String, Integer> holds = holdsByCart.remove(e.getKey());
            if (holds != null) {
                holds.forEach((sku, qty) -> held.merge(sku, -qty, Integer::sum));
            }
            return true;
        });
    }

    /** Units free to sell: on the shelf and not held. */
    public synchronized int available(String sku) {
        expireHolds();
        return stock.getOrDefault(sku, 0) - held.getOrDefault(sku, 0);
    }

    /** The SKUs whose free units are below the reorder threshold. */
    public synchronized Optional<String> nextToReorder() {
        expireHolds();
        return stock.keySet().stream()
            .filter(sku -> available(sku) < reorderThreshold)
            .sorted()
            .findFirst();
    }

    public void setReorderThreshold(int threshold) {
        this.reorderThreshold = threshold;
    }
}
