/** ONNX Runtime sessions live in vision/runtime; this module keeps the older import path working. */
export { intraOpThreads, onnxSession, ort, sessionOptions } from './onnx-session.js';
