package dev.zklite.server;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's session tracker. A background thread takes the bucket of sessions whose
 * deadline passed, marks each as closing and hands it to the expirer, which submits a
 * closeSession request through the normal request pipeline.
 */
public class SessionTrackerImpl extends Thread implements SessionTracker {

    private static final Logger LOG = LoggerFactory.getLogger(SessionTrackerImpl.class);

    protected final ConcurrentHashMap<Long, SessionImpl> sessionsById = new ConcurrentHashMap<>();
    private final ExpiryQueue<SessionImpl> sessionExpiryQueue;
    private final ConcurrentMap<Long, Integer> sessionsWithTimeout;
    private final AtomicLong nextSessionId = new AtomicLong();
    private final SessionExpirer expirer;
    private volatile boolean running = true;

    public static class SessionImpl implements Session {
        final long sessionId;
        final int timeout;
        boolean isClosing;
        Object owner;

        SessionImpl(long sessionId, int timeout) {
            this.sessionId = sessionId;
            this.timeout = timeout;
            this.isClosing = false;
        }

        @Override
        public boolean isClosing() {
            return isClosing;
        }

        @Override
        public long getSessionId() {
            return sessionId;
        }

        @Override
        public int getTimeout() {
            return timeout;
        }

        @Override
        public String toString() {
            return "0x" + Long.toHexString(sessionId);
        }
    }

    /** Session ids start with the server id in the high byte, then a time-based counter. */
    public static long initializeNextSessionId(long id) {
        long nextSid = (Time.currentWallTime() << 24) >>> 8;
        nextSid = nextSid | (id << 56);
        if (nextSid == Long.MIN_VALUE) {
            ++nextSid;
        }
        return nextSid;
    }

    public SessionTrackerImpl(SessionExpirer expirer, ConcurrentMap<Long, Integer> sessionsWithTimeout,
            int tickTime, long serverId) {
        super("SessionTracker");
        this.expirer = expirer;
        this.sessionExpiryQueue = new ExpiryQueue<>(tickTime);
        this.sessionsWithTimeout = sessionsWithTimeout;
        this.nextSessionId.set(initializeNextSessionId(serverId));
        for (Map.Entry<Long, Integer> e : sessionsWithTimeout.entrySet()) {
            trackSession(e.getKey(), e.getValue());
        }
    }

    @Override
    public void run() {
        try {
            while (running) {
                long waitTime = sessionExpiryQueue.getWaitTime();
                if (waitTime > 0) {
                    Thread.sleep(waitTime);
                    continue;
                }

                for (SessionImpl s : sessionExpiryQueue.poll()) {
                    setSessionClosing(s.sessionId);
                    expirer.expire(s);
                }
            }
        } catch (InterruptedException e) {
            LOG.warn("Session tracker interrupted", e);
        }
        LOG.info("SessionTrackerImpl exited loop!");
    }

    @Override
    public long createSession(int sessionTimeout) {
        long sessionId = nextSessionId.getAndIncrement();
        trackSession(sessionId, sessionTimeout);
        return sessionId;
    }

    public synchronized boolean trackSession(long id, int sessionTimeout) {
        boolean added = false;
        SessionImpl session = sessionsById.get(id);
        if (session == null) {
            session = new SessionImpl(id, sessionTimeout);
        }
        SessionImpl existedSession = sessionsById.putIfAbsent(id, session);
        if (existedSession != null) {
            session = existedSession;
        } else {
            added = true;
            LOG.debug("Adding session 0x{}", Long.toHexString(id));
        }
        sessionsWithTimeout.putIfAbsent(id, sessionTimeout);
        updateSessionExpiry(session, sessionTimeout);
        return added;
    }

    public boolean touchSession(long sessionId, int timeout) {
        SessionImpl s = sessionsById.get(sessionId);

        if (s == null) {
            logTraceTouchInvalidSession(sessionId, timeout);
            return false;
        }

        if (s.isClosing()) {
            logTraceTouchClosingSession(sessionId, timeout);
            return false;
        }

        updateSessionExpiry(s, timeout);
        return true;
    }

    private void updateSessionExpiry(SessionImpl s, int timeout) {
        LOG.trace("Touch session 0x{} with timeout {}", Long.toHexString(s.sessionId), timeout);
        sessionExpiryQueue.update(s, timeout);
    }

    private void logTraceTouchInvalidSession(long sessionId, int timeout) {
        LOG.trace("Invalid session 0x{} for touch with timeout {}", Long.toHexString(sessionId), timeout);
    }

    private void logTraceTouchClosingSession(long sessionId, int timeout) {
        LOG.trace("Closing session 0x{} for touch with timeout {}", Long.toHexString(sessionId), timeout);
    }

    public void setSessionClosing(long sessionId) {
        LOG.trace("Session closing: 0x{}", Long.toHexString(sessionId));
        SessionImpl s = sessionsById.get(sessionId);
        if (s == null) {
            return;
        }
        s.isClosing = true;
    }

    @Override
    public synchronized void removeSession(long sessionId) {
        LOG.debug("Removing session 0x{}", Long.toHexString(sessionId));
        SessionImpl s = sessionsById.remove(sessionId);
        sessionsWithTimeout.remove(sessionId);
        if (s != null) {
            sessionExpiryQueue.remove(s);
        }
    }

    @Override
    public synchronized void checkSession(long sessionId) throws SessionExpiredException {
        SessionImpl session = sessionsById.get(sessionId);
        if (session == null || session.isClosing()) {
            throw new SessionExpiredException(sessionId);
        }
    }

    @Override
    public void shutdown() {
        LOG.info("Shutting down");
        running = false;
        interrupt();
    }

    public synchronized void dumpSessions(PrintWriter pwriter) {
        pwriter.print("Session Sets (");
        pwriter.print(sessionExpiryQueue.getExpiryMap().size());
        pwriter.println("):");
        for (Map.Entry<Long, Set<SessionImpl>> e : sessionExpiryQueue.getExpiryMap().entrySet()) {
            pwriter.print(e.getValue().size());
            pwriter.print(" expire at ");
            pwriter.print(e.getKey());
            pwriter.println(":");
            for (SessionImpl s : e.getValue()) {
                pwriter.print("\t0x");
                pwriter.println(Long.toHexString(s.sessionId));
            }
        }
    }
}
