package dev.zklite.persistence;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.BufferedInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.zip.Adler32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log of transactions. Files are named {@code log.<zxid>} after their first
 * zxid. Every record is {@code checksum, length, txn bytes, 'B'}; a record cut short by a
 * crash ends the log, a record with a wrong checksum is an error.
 *
 * <p>Appends are buffered; {@link #commit()} flushes and fsyncs the group, and warns when
 * the fsync is slow, because every write request waits for it.
 */
public class FileTxnLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FileTxnLog.class);

    public static final int TXNLOG_MAGIC = 0x5a4b4c47; // "ZKLG"
    public static final int VERSION = 2;
    static final String PREFIX = "log";
    private static final byte EOR = 'B';

    /** One logged transaction. */
    public record TxnEntry(long sessionId, int cxid, long zxid, long time, int type, byte[] payload) {
    }

    private final File logDir;
    private final boolean forceSync;
    private final long fsyncWarningThresholdMs;
    private final long dbId;
    private FileOutputStream fos;
    private DataOutputStream out;
    private long lastZxidSeen = -1;
    private long lastFsyncMs;

    public FileTxnLog(File logDir, long dbId, boolean forceSync, long fsyncWarningThresholdMs) {
        this.logDir = logDir;
        this.dbId = dbId;
        this.forceSync = forceSync;
        this.fsyncWarningThresholdMs = fsyncWarningThresholdMs;
    }

    /** The name of the file whose first transaction is {@code zxid}. */
    public static String makeLogName(long zxid) {
        return PREFIX + "." + Long.toHexString(zxid);
    }

    /** The zxid in a {@code log.<hex>} or {@code snapshot.<hex>} name, or -1. */
    public static long zxidFromName(String name, String prefix) {
        String[] parts = name.split("\\.", 2);
        if (parts.length != 2 || !parts[0].equals(prefix)) {
            return -1;
        }
        try {
            return Long.parseLong(parts[1], 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Files with the given prefix sorted by zxid, oldest first. */
    static List<File> sortedByZxid(File dir, String prefix) {
        File[] files = dir.listFiles((d, name) -> zxidFromName(name, prefix) >= 0);
        List<File> out = new ArrayList<>(files == null ? List.of() : Arrays.asList(files));
        out.sort(Comparator.comparingLong(f -> zxidFromName(f.getName(), prefix)));
        return out;
    }

    /** Buffers a transaction; it is durable only after {@link #commit()}. */
    public synchronized void append(TxnEntry txn) throws IOException {
        if (txn.zxid() <= lastZxidSeen) {
            LOG.warn("Current zxid 0x{} is <= 0x{} for {}", Long.toHexString(txn.zxid()),
                    Long.toHexString(lastZxidSeen), txn.type());
        } else {
            lastZxidSeen = txn.zxid();
        }
        if (out == null) {
            File file = new File(logDir, makeLogName(txn.zxid()));
            LOG.info("Creating new log file: {}", file.getName());
            fos = new FileOutputStream(file);
            out = new DataOutputStream(new BufferedOutputStream(fos));
            out.writeInt(TXNLOG_MAGIC);
            out.writeInt(VERSION);
            out.writeLong(dbId);
        }
        byte[] bytes = serialize(txn);
        Adler32 crc = new Adler32();
        crc.update(bytes, 0, bytes.length);
        out.writeLong(crc.getValue());
        out.writeInt(bytes.length);
        out.write(bytes);
        out.writeByte(EOR);
    }

    private static byte[] serialize(TxnEntry txn) throws IOException {
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream(64 + txn.payload().length);
        DataOutputStream d = new DataOutputStream(buf);
        d.writeLong(txn.sessionId());
        d.writeInt(txn.cxid());
        d.writeLong(txn.zxid());
        d.writeLong(txn.time());
        d.writeInt(txn.type());
        d.writeInt(txn.payload().length);
        d.write(txn.payload());
        return buf.toByteArray();
    }

    private static TxnEntry deserialize(byte[] bytes) throws IOException {
        DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
        long sessionId = d.readLong();
        int cxid = d.readInt();
        long zxid = d.readLong();
        long time = d.readLong();
        int type = d.readInt();
        byte[] payload = new byte[d.readInt()];
        d.readFully(payload);
        return new TxnEntry(sessionId, cxid, zxid, time, type, payload);
    }

    /** Flushes buffered transactions and, with forceSync, waits until they are on disk. */
    public synchronized void commit() throws IOException {
        if (out == null) {
            return;
        }
        out.flush();
        if (forceSync) {
            long start = System.nanoTime();
            fos.getChannel().force(false);
            lastFsyncMs = (System.nanoTime() - start) / 1_000_000;
            if (lastFsyncMs > fsyncWarningThresholdMs) {
                LOG.warn("fsync-ing the write ahead log in {} took {}ms which will adversely effect operation latency. "
                        + "File size is {} bytes.", Thread.currentThread().getName(), lastFsyncMs,
                        fos.getChannel().size());
            }
        }
    }

    /** Starts a new file with the next append, e.g. after a snapshot was taken. */
    public synchronized void rollLog() throws IOException {
        commit();
        close();
    }

    @Override
    public synchronized void close() throws IOException {
        if (out != null) {
            out.close();
            out = null;
            fos = null;
        }
    }

    /** Duration of the last fsync, for the "mntr" word. */
    public synchronized long lastFsyncMs() {
        return lastFsyncMs;
    }

    /**
     * Reads every transaction with zxid >= {@code fromZxid}, oldest first, stopping at the
     * first record torn by a crash.
     */
    public List<TxnEntry> read(long fromZxid) throws IOException {
        List<File> files = sortedByZxid(logDir, PREFIX);
        // start with the last file whose first zxid is <= fromZxid; it may hold fromZxid
        int start = 0;
        for (int i = 0; i < files.size(); i++) {
            if (zxidFromName(files.get(i).getName(), PREFIX) <= fromZxid) {
                start = i;
            }
        }
        List<TxnEntry> txns = new ArrayList<>();
        for (File file : files.subList(start, files.size())) {
            if (!readFile(file, fromZxid, txns)) {
                break;
            }
        }
        return txns;
    }

    /** @return false if the file ended in a torn record, so later files must not be read */
    private boolean readFile(File file, long fromZxid, List<TxnEntry> into) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file)))) {
            if (in.readInt() != TXNLOG_MAGIC) {
                throw new IOException("Invalid magic number in " + file);
            }
            in.readInt();
            in.readLong();
            while (true) {
                long checksum;
                try {
                    checksum = in.readLong();
                } catch (EOFException e) {
                    return true;
                }
                int len = in.readInt();
                if (len == 0) {
                    return true; // preallocated zeros: end of the written part
                }
                byte[] bytes = new byte[len];
                in.readFully(bytes);
                Adler32 crc = new Adler32();
                crc.update(bytes, 0, len);
                if (crc.getValue() != checksum) {
                    throw new IOException("CRC check failed in " + file.getName());
                }
                if (in.readByte() != EOR) {
                    throw new IOException("Last transaction was partial in " + file.getName());
                }
                TxnEntry txn = deserialize(bytes);
                if (txn.zxid() >= fromZxid) {
                    into.add(txn);
                }
            }
        } catch (EOFException e) {
            LOG.warn("EOF in the middle of a record of {}; treating it as the end of the log", file.getName());
            return false;
        }
    }
}
