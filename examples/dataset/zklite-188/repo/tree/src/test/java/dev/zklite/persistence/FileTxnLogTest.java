package dev.zklite.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTxnLogTest {

    @TempDir
    Path dir;

    private static FileTxnLog.TxnEntry txn(long zxid) {
        return new FileTxnLog.TxnEntry(0x1000a3f2c0004L, (int) zxid, zxid, 1_000L + zxid, 1, new byte[] {(byte) zxid});
    }

    @Test
    void readsFromZxidAcrossRolledFiles() throws Exception {
        try (FileTxnLog log = new FileTxnLog(dir.toFile(), 1, false, 1000)) {
            log.append(txn(1));
            log.append(txn(2));
            log.rollLog();
            log.append(txn(3));
            log.commit();
        }
        List<FileTxnLog.TxnEntry> txns = new FileTxnLog(dir.toFile(), 1, false, 1000).read(2);
        assertEquals(List.of(2L, 3L), txns.stream().map(FileTxnLog.TxnEntry::zxid).toList());
    }

    @Test
    void tornLastRecordEndsTheLog() throws Exception {
        try (FileTxnLog log = new FileTxnLog(dir.toFile(), 1, false, 1000)) {
            log.append(txn(1));
            log.append(txn(2));
            log.commit();
        }
        File file = dir.resolve(FileTxnLog.makeLogName(1)).toFile();
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
            raf.setLength(raf.length() - 3);
        }
        assertEquals(1, new FileTxnLog(dir.toFile(), 1, false, 1000).read(0).size());
    }
}
