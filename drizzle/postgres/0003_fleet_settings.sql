CREATE TABLE "leaf_setting" (
	"name" varchar(64) PRIMARY KEY NOT NULL,
	"value" varchar(512) NOT NULL,
	"set_by" varchar(255) NOT NULL,
	"set_at" bigint NOT NULL
);
