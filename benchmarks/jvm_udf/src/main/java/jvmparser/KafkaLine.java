package jvmparser;

/**
 * The message side: Kafka's default log4j layout head split
 * ({@code [2026-11-25 10:00:00,123] INFO [Something] text (logger.Class)}) by indexOf/charAt, and
 * the Kafka family's prefilter anchors.
 */
public final class KafkaLine {
    private KafkaLine() {}

    /** {@code kafka_health.parsing.prefilter.prefilter_anchors()["kafka"]} (generated). */
    public static final String[] ANCHORS = {
        "-follower transition",
        "-leader transition",
        "-log-cleaner-thread-",
        "; shut down all controller components",
        "Becoming the active controller",
        "Broker failure callback",
        "Client session timed out",
        "Disconnected",
        "Expanding ISR",
        "Failed to elect leader",
        "Fencing broker",
        "Finished loading of metadata from",
        "Finished loading offsets",
        "Initiating client connection",
        "KafkaConfig values:",
        "Leader Epoch",
        "Loading offsets from",
        "NotLeader",
        "OT_LEADER_",
        "Processor got uncaught exception",
        "Registering a new incarnation of broker",
        "SR updated to",
        "Scheduling loading of metadata from",
        "Scheduling loading of offsets",
        "Shrinking ISR",
        "Shutting down broker ",
        "Starting controlled shutdown",
        "Terminating process due to signal",
        "UTTING_DOWN",
        "Updated PartitionLeaderEpoch",
        "ZooKeeper service",
        "ZooKeeperClient",
        "become controller state transition",
        "been elected as the controller",
        "for offline partition",
        "g offsets and group metadata from",
        "granted a controlled shutdown",
        "leader epoch",
        "plete preferred replica",
        "preferred replica leader election",
        "quired minimum",
        "uncleanable",
        "w epoch entry",
        "y elected as",
        "y the min.isr",
        "zookeeper state changed (Expired",
    };

    /** The first line's timestamp text, level and logger (each null when the line has none). */
    public static String[] head(String message) {
        String[] out = new String[3];
        if (message == null) {
            return out;
        }
        int nl = message.indexOf('\n');
        String line = nl < 0 ? message : message.substring(0, nl);
        int n = line.length();
        if (n > 0 && line.charAt(0) == '[') {
            int close = line.indexOf(']');
            if (close > 1) {
                out[0] = line.substring(1, close);
                int from = close + 2;
                if (from <= n && line.charAt(close + 1) == ' ') {
                    int to = line.indexOf(' ', from);
                    if (to < 0) to = n;
                    if (to > from) out[1] = line.substring(from, to);
                }
            }
        }
        if (n > 0 && line.charAt(n - 1) == ')') {
            int open = line.lastIndexOf('(', n - 2);
            if (open >= 0) out[2] = line.substring(open + 1, n - 1);
        }
        return out;
    }

    /** Whether the text holds any anchor: one String.contains (an intrinsic indexOf) each. */
    public static boolean anyAnchor(String text) {
        if (text == null) {
            return false;
        }
        for (String a : ANCHORS) {
            if (text.contains(a)) {
                return true;
            }
        }
        return false;
    }

    // ---- one pass instead: at each character, the anchors that start with it and the next ----

    private static final String[][] BY_BIGRAM = new String[1 << 14][];

    static {
        for (String a : ANCHORS) {
            int k = bigram(a.charAt(0), a.charAt(1));
            String[] old = BY_BIGRAM[k];
            String[] grown = old == null ? new String[1] : java.util.Arrays.copyOf(old, old.length + 1);
            grown[grown.length - 1] = a;
            BY_BIGRAM[k] = grown;
        }
    }

    private static int bigram(char a, char b) {
        return ((a & 0x7F) << 7) | (b & 0x7F);
    }

    /** As {@link #anyAnchor}, one pass over the text (a table of the anchors' first two chars). */
    public static boolean anyAnchorScan(String text) {
        if (text == null) {
            return false;
        }
        int n = text.length() - 1;
        for (int i = 0; i < n; i++) {
            char a = text.charAt(i), b = text.charAt(i + 1);
            if ((a | b) > 0x7F) continue; // every anchor is ASCII
            String[] cands = BY_BIGRAM[bigram(a, b)];
            if (cands != null) {
                for (String c : cands) {
                    if (text.startsWith(c, i)) return true;
                }
            }
        }
        return false;
    }
}
