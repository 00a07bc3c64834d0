CREATE TABLE "leaf_participant" (
	"instance_id" varchar(64) PRIMARY KEY NOT NULL,
	"kind" varchar(16) NOT NULL,
	"label" varchar(255) NOT NULL,
	"host" varchar(255) NOT NULL,
	"proc_key" varchar(255) NOT NULL,
	"acked_version" bigint DEFAULT 0 NOT NULL,
	"started_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "leaf_order" ADD COLUMN "ordering" varchar(8) DEFAULT 'strict' NOT NULL;--> statement-breakpoint
ALTER TABLE "leaf_order" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leaf_order" ADD COLUMN "complete_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "leaf_order" SET "complete_at" = "strict_since";--> statement-breakpoint
INSERT INTO "leaf_order" ("biz_tag", "ordering", "strict_since", "version") VALUES ('*', 'none', 0, 0);