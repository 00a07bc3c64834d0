CREATE TABLE "leaf_order" (
	"biz_tag" varchar(128) PRIMARY KEY NOT NULL,
	"strict_since" bigint NOT NULL,
	"epoch" bigint DEFAULT 0 NOT NULL,
	"owner_node" varchar(255),
	"owner_instance" varchar(64),
	"owner_address" varchar(255),
	"lease_expires_at" bigint DEFAULT 0 NOT NULL,
	"acquired_at" bigint DEFAULT 0 NOT NULL
);
