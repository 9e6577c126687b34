-- compose.yaml: one database per region on the bundled PostgreSQL (run once, when its volume is created).
CREATE DATABASE iris_cn_east;
CREATE DATABASE iris_ap_southeast;
