package dev.zklite.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The last stage: applies a committed request to the tree and answers the client. */
public class FinalRequestProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(FinalRequestProcessor.class);

    private final DataTree tree;

    public FinalRequestProcessor(DataTree tree) {
        this.tree = tree;
    }

    public void processRequest(Request request) {
        LOG.debug("Processing request:: {}", request);
        Request.Code code = Request.Code.OK;
        byte[] payload = new byte[0];
        try {
            switch (request.type) {
                case CREATE:
                    tree.createNode(request.path, request.data, request.acl, request.zxid);
                    payload = request.path.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    break;
                case DELETE:
                    tree.deleteNode(request.path, request.zxid);
                    break;
                case SET_DATA:
                    tree.setData(request.path, request.data, request.zxid);
                    break;
                case SET_ACL:
                    tree.setACL(request.path, request.acl, request.zxid);
                    break;
                case GET_DATA:
                    payload = tree.getData(request.path);
                    break;
                case SYNC:
                    break;
                default:
                    code = Request.Code.SYSTEM_ERROR;
            }
        } catch (DataTree.NoNodeException e) {
            code = Request.Code.NO_NODE;
        } catch (DataTree.NodeExistsException e) {
            code = Request.Code.NODE_EXISTS;
        }
        request.sink.send(request.cxid, request.zxid, code, payload);
    }
}
