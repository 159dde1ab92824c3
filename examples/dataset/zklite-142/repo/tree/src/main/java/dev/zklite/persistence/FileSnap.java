package dev.zklite.persistence;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.Adler32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fuzzy snapshots of the tree and the session table. A snapshot is taken while writes go
 * on, so restoring replays the log from the snapshot's zxid; replaying a txn twice must be
 * harmless. The file ends with an Adler32 checksum and a '/' so a torn snapshot is skipped.
 */
public class FileSnap {

    private static final Logger LOG = LoggerFactory.getLogger(FileSnap.class);

    public static final int SNAP_MAGIC = 0x5a4b534e; // "ZKSN"
    static final String PREFIX = "snapshot";
    private static final int MAX_SNAPSHOTS_TRIED = 100;

    /** Writes and reads the tree; implemented by the data tree of the server. */
    public interface TreeSerializer {
        void serialize(DataOutputStream out) throws IOException;

        void deserialize(DataInputStream in) throws IOException;
    }

    private final File snapDir;

    public FileSnap(File snapDir) {
        this.snapDir = snapDir;
    }

    /**
     * Restores the most recent valid snapshot into the serializer and the session map.
     *
     * @return the zxid of the snapshot, or -1 if there is none
     */
    public long deserialize(TreeSerializer tree, Map<Long, Integer> sessionsWithTimeouts) throws IOException {
        List<File> snaps = findValidSnapshots(MAX_SNAPSHOTS_TRIED);
        for (File snap : snaps) {
            LOG.info("Reading snapshot {}", snap);
            try (CheckedInputStream cis = new CheckedInputStream(new BufferedInputStream(new FileInputStream(snap)),
                    new Adler32())) {
                DataInputStream in = new DataInputStream(cis);
                if (in.readInt() != SNAP_MAGIC) {
                    throw new IOException("mismatching magic headers in " + snap);
                }
                Map<Long, Integer> sessions = readSessions(in);
                tree.deserialize(in);
                long expected = cis.getChecksum().getValue();
                long actual = in.readLong();
                if (expected != actual) {
                    throw new IOException("CRC corruption in snapshot: " + snap);
                }
                sessionsWithTimeouts.putAll(sessions);
                return FileTxnLog.zxidFromName(snap.getName(), PREFIX);
            } catch (IOException e) {
                LOG.warn("problem reading snap file {}", snap, e);
            }
        }
        if (!snaps.isEmpty()) {
            throw new IOException("Not able to find valid snapshots in " + snapDir);
        }
        return -1L;
    }

    private static Map<Long, Integer> readSessions(DataInputStream in) throws IOException {
        int count = in.readInt();
        Map<Long, Integer> sessions = new HashMap<>();
        for (int i = 0; i < count; i++) {
            sessions.put(in.readLong(), in.readInt());
        }
        return sessions;
    }

    /** Writes a snapshot atomically: to a temporary file first, then renamed into place. */
    public File serialize(TreeSerializer tree, Map<Long, Integer> sessionsWithTimeouts, long zxid) throws IOException {
        File target = new File(snapDir, PREFIX + "." + Long.toHexString(zxid));
        File tmp = new File(snapDir, target.getName() + ".tmp");
        try (FileOutputStream fos = new FileOutputStream(tmp);
                CheckedOutputStream cos = new CheckedOutputStream(new BufferedOutputStream(fos), new Adler32())) {
            DataOutputStream out = new DataOutputStream(cos);
            out.writeInt(SNAP_MAGIC);
            out.writeInt(sessionsWithTimeouts.size());
            for (Map.Entry<Long, Integer> e : sessionsWithTimeouts.entrySet()) {
                out.writeLong(e.getKey());
                out.writeInt(e.getValue());
            }
            tree.serialize(out);
            out.writeLong(cos.getChecksum().getValue());
            out.writeByte('/');
            out.flush();
            fos.getChannel().force(true);
        }
        Files.move(tmp.toPath(), target.toPath(), StandardCopyOption.ATOMIC_MOVE);
        LOG.info("Snapshotting: 0x{} to {}", Long.toHexString(zxid), target);
        return target;
    }

    /** Up to {@code n} snapshots that end with the terminator, newest first. */
    public List<File> findValidSnapshots(int n) throws IOException {
        List<File> files = FileTxnLog.sortedByZxid(snapDir, PREFIX);
        List<File> out = new ArrayList<>();
        for (int i = files.size() - 1; i >= 0 && out.size() < n; i--) {
            File f = files.get(i);
            if (isValidSnapshot(f)) {
                out.add(f);
            } else {
                LOG.info("Invalid snapshot {}", f);
            }
        }
        return out;
    }

    /** A cheap check: long enough, and the last byte is the '/' terminator. */
    static boolean isValidSnapshot(File f) throws IOException {
        if (f.length() < 14) {
            return false;
        }
        try (RandomAccessFile raf = new RandomAccessFile(f, "r")) {
            raf.seek(raf.length() - 1);
            return raf.readByte() == '/';
        }
    }
}
