CREATE TABLE IF NOT EXISTS "leaf_alloc" (
	"biz_tag" varchar(128) PRIMARY KEY DEFAULT '' NOT NULL,
	"max_id" bigint DEFAULT 1 NOT NULL,
	"step" integer NOT NULL,
	"description" varchar(256),
	"update_time" timestamp DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leaf_alloc_tombstone" (
	"biz_tag" varchar(128) PRIMARY KEY NOT NULL,
	"max_id" bigint NOT NULL,
	"deleted_at" timestamp DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leaf_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"action" varchar(32) NOT NULL,
	"biz_tag" varchar(128),
	"actor" varchar(128) NOT NULL,
	"address" varchar(64) NOT NULL,
	"node_id" varchar(255) NOT NULL,
	"before" text,
	"after" text
);
--> statement-breakpoint
CREATE TABLE "leaf_format" (
	"biz_tag" varchar(128) PRIMARY KEY NOT NULL,
	"pattern" varchar(256) NOT NULL,
	"reset_period" varchar(16) NOT NULL,
	"time_zone" varchar(64) NOT NULL,
	"step" integer NOT NULL,
	"description" varchar(256),
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"deleted_at" bigint
);
--> statement-breakpoint
CREATE TABLE "leaf_format_period" (
	"biz_tag" varchar(128) NOT NULL,
	"period_key" varchar(8) NOT NULL,
	"max_id" bigint NOT NULL,
	"step" integer NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "leaf_format_period_biz_tag_period_key_pk" PRIMARY KEY("biz_tag","period_key")
);
--> statement-breakpoint
CREATE TABLE "leaf_node" (
	"node_id" varchar(255) PRIMARY KEY NOT NULL,
	"instance_id" varchar(64) NOT NULL,
	"address" varchar(255) NOT NULL,
	"version" varchar(64) NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"state" varchar(16) NOT NULL,
	"snapshot" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leaf_semantics" (
	"biz_tag" varchar(128) PRIMARY KEY NOT NULL,
	"semantics" varchar(8) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leaf_token" (
	"id" varchar(16) PRIMARY KEY NOT NULL,
	"name" varchar(128) NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"tags" text NOT NULL,
	"created_at" bigint NOT NULL,
	"created_by" varchar(128) NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "leaf_token_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "leaf_worker" (
	"worker_id" integer PRIMARY KEY NOT NULL,
	"node_id" varchar(255) NOT NULL,
	"instance_id" varchar(64) NOT NULL,
	"lease_expires_at" bigint NOT NULL,
	"last_timestamp" bigint DEFAULT 0 NOT NULL,
	"heartbeat_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "leaf_audit_biz_tag" ON "leaf_audit" USING btree ("biz_tag","id");--> statement-breakpoint
CREATE INDEX "leaf_worker_node_id" ON "leaf_worker" USING btree ("node_id");