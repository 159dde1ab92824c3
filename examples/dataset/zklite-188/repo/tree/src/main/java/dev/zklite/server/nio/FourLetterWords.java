package dev.zklite.server.nio;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The four-letter admin words. A word is sent instead of the first frame length, so each
 * is known by the int its four ASCII bytes make.
 */
public final class FourLetterWords {

    public static final String RUOK = "ruok";
    public static final String STAT = "stat";
    public static final String SRVR = "srvr";
    public static final String CONS = "cons";
    public static final String MNTR = "mntr";
    public static final String DUMP = "dump";
    public static final String ENVI = "envi";
    public static final String CONF = "conf";
    public static final String WCHS = "wchs";
    public static final String SRST = "srst";

    private static final Map<Integer, String> WORDS = new TreeMap<>();

    /** Words that change server state; disabled unless the whitelist names them. */
    private static final Set<String> MUTATING = Set.of(SRST);

    static {
        for (String word : new String[] {RUOK, STAT, SRVR, CONS, MNTR, DUMP, ENVI, CONF, WCHS, SRST}) {
            WORDS.put(toInt(word), word);
        }
    }

    private FourLetterWords() {
    }

    static int toInt(String word) {
        byte[] b = word.getBytes(StandardCharsets.US_ASCII);
        if (b.length != 4) {
            throw new IllegalArgumentException("not a four-letter word: " + word);
        }
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    public static boolean isKnown(int value) {
        return WORDS.containsKey(value);
    }

    public static String name(int value) {
        return WORDS.get(value);
    }

    /**
     * Whether a word may run given the configured whitelist ("*" allows all read-only words;
     * mutating words must always be named explicitly).
     */
    public static boolean isEnabled(String word, Set<String> whitelist) {
        if (whitelist.contains(word)) {
            return true;
        }
        return whitelist.contains("*") && !MUTATING.contains(word);
    }
}
